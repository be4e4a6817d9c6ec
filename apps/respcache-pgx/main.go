// Command respcache-pgx is the server of examples/response-cache: a page of
// the saas-slice fixture's users and a rename, on net/http and a pgx pool,
// with an optional in-process response cache in front of the pages.
//
//	GET  /health                       {"status":"ok"}
//	GET  /users?page=N&limit=M          users (page-1)·M+1 … page·M by id
//	PUT  /users/{id}/name {"name":…}    renames the user, answers it
//
// With RESPONSE_CACHE=on a page's rendered body is kept in memory and
// served from there; a rename refreshes every cached page that holds the
// user before it answers (a write-through cache: no reader ever gets a
// stale page or a miss after a write). So the cache makes reads cheaper
// and writes dearer: the layer examples/response-cache measures on a mix
// of the two routes.
//
// It reads HOST (default 127.0.0.1), PORT, DATABASE_URL and DB_POOL
// (connections, default 8); SIGTERM or SIGINT stops it.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// user is a row of the fixture's users table as the routes answer it.
type user struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Age   int    `json:"age"`
}

// maxLimit bounds a page's size.
const maxLimit = 100

// pageKey names a page: its number and size.
type pageKey struct{ page, limit int }

// firstID and lastID are the ids a page holds.
func (k pageKey) firstID() int64 { return int64(k.page-1)*int64(k.limit) + 1 }
func (k pageKey) lastID() int64  { return int64(k.page) * int64(k.limit) }

// cache holds rendered pages; nil when the cache is off.
type cache struct {
	mu    sync.RWMutex
	pages map[pageKey][]byte
}

func (c *cache) get(k pageKey) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.pages[k]
	return b, ok
}

func (c *cache) put(k pageKey, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pages[k] = b
}

// holding lists the cached pages that hold user id.
func (c *cache) holding(id int64) []pageKey {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []pageKey
	for k := range c.pages {
		if k.firstID() <= id && id <= k.lastID() {
			out = append(out, k)
		}
	}
	return out
}

type app struct {
	db    *pgxpool.Pool
	cache *cache
}

func main() {
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatalf("DATABASE_URL: %v", err)
	}
	cfg.MaxConns = 8
	if n, err := strconv.Atoi(os.Getenv("DB_POOL")); err == nil && n > 0 {
		cfg.MaxConns = int32(n)
	}
	db, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	a := &app{db: db}
	switch os.Getenv("RESPONSE_CACHE") {
	case "on":
		a.cache = &cache{pages: map[pageKey][]byte{}}
	case "", "off":
	default:
		log.Fatalf("RESPONSE_CACHE=%q: write on or off", os.Getenv("RESPONSE_CACHE"))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		reply(w, http.StatusOK, []byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /users", a.page)
	mux.HandleFunc("PUT /users/{id}/name", a.rename)
	host := os.Getenv("HOST")
	if host == "" {
		host = "127.0.0.1"
	}
	srv := &http.Server{Addr: net.JoinHostPort(host, os.Getenv("PORT")), Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func reply(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

func fail(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	reply(w, status, b)
}

// intParam reads a positive integer query parameter, def when absent.
func intParam(r *http.Request, name string, def, most int) (int, bool) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= most
}

// page answers a page of users, from the cache when it is on and holds it.
func (a *app) page(w http.ResponseWriter, r *http.Request) {
	p, ok1 := intParam(r, "page", 1, 1_000_000)
	l, ok2 := intParam(r, "limit", 20, maxLimit)
	if !ok1 || !ok2 {
		fail(w, http.StatusBadRequest, "page and limit must be whole numbers, limit at most 100")
		return
	}
	k := pageKey{p, l}
	if a.cache != nil {
		if b, ok := a.cache.get(k); ok {
			reply(w, http.StatusOK, b)
			return
		}
	}
	b, err := a.render(r.Context(), k)
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	if a.cache != nil {
		a.cache.put(k, b)
	}
	reply(w, http.StatusOK, b)
}

// render reads a page from the database and encodes it.
func (a *app) render(ctx context.Context, k pageKey) ([]byte, error) {
	rows, err := a.db.Query(ctx, "SELECT id, name, email, age FROM users WHERE id BETWEEN $1 AND $2 ORDER BY id", k.firstID(), k.lastID())
	if err != nil {
		return nil, err
	}
	users, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (user, error) {
		var u user
		err := row.Scan(&u.ID, &u.Name, &u.Email, &u.Age)
		return u, err
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"page": k.page, "limit": k.limit, "users": users})
}

// rename sets a user's name; with the cache on, it renders again every
// cached page holding the user before it answers.
func (a *app) rename(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		fail(w, http.StatusBadRequest, "the user id must be a whole number")
		return
	}
	var in struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil || in.Name == "" {
		fail(w, http.StatusBadRequest, `write {"name": "…"}`)
		return
	}
	var u user
	err = a.db.QueryRow(r.Context(), "UPDATE users SET name = $2 WHERE id = $1 RETURNING id, name, email, age", id, in.Name).Scan(&u.ID, &u.Name, &u.Email, &u.Age)
	if errors.Is(err, pgx.ErrNoRows) {
		fail(w, http.StatusNotFound, "no such user")
		return
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	if a.cache != nil {
		for _, k := range a.cache.holding(id) {
			b, err := a.render(r.Context(), k)
			if err != nil {
				fail(w, http.StatusInternalServerError, err.Error())
				return
			}
			a.cache.put(k, b)
		}
	}
	b, _ := json.Marshal(u)
	reply(w, http.StatusOK, b)
}
