package pgfix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// statementsLibrary is the contrib module that counts statements.
const statementsLibrary = "pg_stat_statements"

// addStatementsLibrary preloads pg_stat_statements in the embedded
// cluster when the installation ships it (Debian's postgresql-NN does, in
// lib/ beside bin/; Homebrew's in lib/postgresql/): a library that is not
// there would stop the server from starting. Loaded, it costs a hash
// lookup and a counter update per statement; nothing reads it but the
// profiling phase.
func addStatementsLibrary(settings map[string]string, binDir string) {
	if binDir == "" {
		return
	}
	// PATH may hold links to the binaries (/usr/local/bin/postgres ->
	// /usr/lib/postgresql/15/bin/postgres): the libraries are beside the
	// real ones.
	if real, err := filepath.EvalSymlinks(filepath.Join(binDir, "postgres")); err == nil {
		binDir = filepath.Dir(real)
	}
	for _, dir := range []string{"lib", filepath.Join("lib", "postgresql")} {
		for _, ext := range []string{".so", ".dylib"} {
			if _, err := os.Stat(filepath.Join(binDir, "..", dir, statementsLibrary+ext)); err == nil {
				settings["shared_preload_libraries"] = statementsLibrary
				return
			}
		}
	}
}

// Statement is one statement's counts from pg_stat_statements.
type Statement struct {
	Query       string
	Calls       int64
	TotalMillis float64
	Rows        int64
}

// ResetStatements creates the pg_stat_statements extension in the
// database if needed and empties its counts. It fails with a message
// saying what to do when the server did not preload the library.
func (db *DB) ResetStatements(ctx context.Context) error {
	var loaded string
	if err := db.conn.QueryRow(ctx, "SELECT current_setting('shared_preload_libraries')").Scan(&loaded); err != nil {
		return fmt.Errorf("read shared_preload_libraries: %w", err)
	}
	if !strings.Contains(loaded, statementsLibrary) {
		return fmt.Errorf("the server does not load %s; add shared_preload_libraries = '%s' to its postgresql.conf and restart it (the embedded database does it when PostgreSQL's contrib modules are installed)", statementsLibrary, statementsLibrary)
	}
	if _, err := db.conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+statementsLibrary); err != nil {
		return fmt.Errorf("create extension %s: %w", statementsLibrary, err)
	}
	if _, err := db.conn.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
		return fmt.Errorf("reset %s: %w", statementsLibrary, err)
	}
	return nil
}

// Statements returns the statements counted since ResetStatements in this
// database, by total execution time, at most limit of them; the reset
// and this query themselves are left out.
func (db *DB) Statements(ctx context.Context, limit int) ([]Statement, error) {
	return db.StatementsIn(ctx, "", limit)
}

// StatementsIn is Statements of database name on the same server ("" for
// this connection's): each stack of a run has a database of its own.
func (db *DB) StatementsIn(ctx context.Context, name string, limit int) ([]Statement, error) {
	rows, err := db.conn.Query(ctx, `SELECT query, calls, total_exec_time, rows FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = coalesce(nullif($2, ''), current_database()))
		  AND query NOT LIKE '%pg_stat_statements%'
		ORDER BY total_exec_time DESC LIMIT $1`, limit, name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", statementsLibrary, err)
	}
	defer rows.Close()
	var out []Statement
	for rows.Next() {
		var s Statement
		if err := rows.Scan(&s.Query, &s.Calls, &s.TotalMillis, &s.Rows); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
