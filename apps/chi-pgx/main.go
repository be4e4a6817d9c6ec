// Command chi-pgx is the SaaS-slice reference server on the go-chi/chi v5
// router: nethttp-pgx with chi in place of net/http's ServeMux, and nothing
// else changed (pgx v5 pool of 10, encoding/json, the same net/http server).
// STACKBENCH_WORKLOAD=micro serves the micro workload; SIGTERM stops it
// gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/stackbench/stackbench/apps/internal/saas"
)

func main() { saas.Main("chi-pgx", run) }

func run(ctx context.Context, cfg saas.Config) error {
	if cfg.Workload == saas.WorkloadMicro {
		return saas.ServeHTTP(ctx, cfg.Addr, microRouter(saas.NewMicro(saas.StdJSON{})))
	}
	store, err := saas.OpenPgx(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	return saas.ServeHTTP(ctx, cfg.Addr, router(saas.New(store, saas.StdJSON{}, cfg.JWTSecret)))
}

// router routes the SaaS-slice workload with chi; no middleware, as chi's
// middleware (logger, recoverer) is opt-in.
func router(a *saas.App) http.Handler {
	r := chi.NewRouter()
	r.Get("/health", func(w http.ResponseWriter, r *http.Request) {
		saas.WriteResponse(w, a.Health())
	})
	r.Post("/echo", func(w http.ResponseWriter, r *http.Request) {
		if body, ok := saas.ReadBody(w, r); ok {
			saas.WriteResponse(w, a.Echo(body))
		}
	})
	r.Get("/me", func(w http.ResponseWriter, r *http.Request) {
		saas.WriteResponse(w, a.Me(r.Context(), r.Header.Get("Authorization")))
	})
	r.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		saas.WriteResponse(w, a.User(r.Context(), chi.URLParam(r, "id")))
	})
	r.Get("/users", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		saas.WriteResponse(w, a.ListUsers(r.Context(), q.Get("page"), q.Get("limit")))
	})
	r.Post("/orders", func(w http.ResponseWriter, r *http.Request) {
		if body, ok := saas.ReadBody(w, r); ok {
			saas.WriteResponse(w, a.CreateOrder(r.Context(), body))
		}
	})
	r.Get("/cpu", func(w http.ResponseWriter, r *http.Request) {
		saas.WriteResponse(w, a.CPU(r.URL.Query().Get("n")))
	})
	return r
}

// microRouter routes the micro workload (and /health) with chi.
func microRouter(a *saas.App) http.Handler {
	r := chi.NewRouter()
	r.Get("/health", func(w http.ResponseWriter, r *http.Request) {
		saas.WriteResponse(w, a.Health())
	})
	r.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		saas.WriteResponse(w, a.MicroUser(chi.URLParam(r, "id")))
	})
	r.Post("/users", func(w http.ResponseWriter, r *http.Request) {
		if body, ok := saas.ReadBody(w, r); ok {
			saas.WriteResponse(w, a.MicroCreate(body))
		}
	})
	return r
}
