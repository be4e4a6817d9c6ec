package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The database mode (TABLE set): items in PostgreSQL, in a table and a
// column of the stack's own (TABLE, COL: "name" when unset), so that two
// stacks of one workload have different schemas.
//
//	ownapp migrate   creates the table (as a migration tool would)
//	ownapp seed      inserts alpha and beta
//	GET  /items/{name}   {"item":{"name":…}}, 404 when there is none
//	POST /items          {"name":…} inserts one: 201 {"item":{"name":…}}
//	GET  /count          {"count":N}

var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// dbNames are the table and the column, checked to be plain identifiers.
func dbNames() (table, col string) {
	table, col = os.Getenv("TABLE"), os.Getenv("COL")
	if col == "" {
		col = "name"
	}
	if !identifier.MatchString(table) || !identifier.MatchString(col) {
		fmt.Fprintln(os.Stderr, "TABLE and COL must be plain identifiers")
		os.Exit(2)
	}
	return table, col
}

// dbCommand runs ownapp migrate or ownapp seed against DATABASE_URL.
func dbCommand(what string) {
	table, col := dbNames()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer pool.Close()
	sql := map[string]string{
		"migrate": fmt.Sprintf("CREATE TABLE %s (id serial PRIMARY KEY, %s text NOT NULL)", table, col),
		"seed":    fmt.Sprintf("INSERT INTO %s (%s) VALUES ('alpha'), ('beta')", table, col),
	}[what]
	if _, err := pool.Exec(ctx, sql); err != nil {
		fmt.Fprintln(os.Stderr, what+":", err)
		os.Exit(1)
	}
}

// dbRoutes adds the database mode's routes to mux.
func dbRoutes(mux *http.ServeMux, reply func(http.ResponseWriter, int, any)) {
	table, col := dbNames()
	pool, err := pgxpool.New(context.Background(), os.Getenv("DATABASE_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fail := func(w http.ResponseWriter, err error) { reply(w, 500, map[string]string{"error": err.Error()}) }
	mux.HandleFunc("GET /items/{name}", func(w http.ResponseWriter, r *http.Request) {
		var name string
		err := pool.QueryRow(r.Context(), fmt.Sprintf("SELECT %s FROM %s WHERE %s = $1 LIMIT 1", col, table, col), r.PathValue("name")).Scan(&name)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			reply(w, 404, map[string]string{"error": "no such item"})
		case err != nil:
			fail(w, err)
		default:
			reply(w, 200, map[string]any{"item": map[string]string{"name": name}})
		}
	})
	mux.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Name string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" {
			reply(w, 422, map[string]string{"error": "no name"})
			return
		}
		if _, err := pool.Exec(r.Context(), fmt.Sprintf("INSERT INTO %s (%s) VALUES ($1)", table, col), in.Name); err != nil {
			fail(w, err)
			return
		}
		reply(w, 201, map[string]any{"item": map[string]string{"name": in.Name}})
	})
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, r *http.Request) {
		var n int
		if err := pool.QueryRow(r.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			fail(w, err)
			return
		}
		reply(w, 200, map[string]int{"count": n})
	})
}
