// Command nethttp-sqlpgx is the SaaS-slice reference server on database/sql
// over pgx's stdlib adapter: nethttp-pgx with database/sql in place of pgx's
// native pool, and nothing else changed (net/http's ServeMux, encoding/json).
// The pool keeps 10 open and 10 idle connections; the three queries are
// prepared once and database/sql prepares each on a connection the first
// time it runs there (saas.SQLStore). STACKBENCH_WORKLOAD=micro serves the
// micro workload; SIGTERM stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/stackbench/stackbench/apps/internal/saas"
)

func main() { saas.Main("nethttp-sqlpgx", run) }

func run(ctx context.Context, cfg saas.Config) error {
	if cfg.Workload == saas.WorkloadMicro {
		return saas.ServeHTTP(ctx, cfg.Addr, saas.NetHTTPMicroHandler(saas.NewMicro(saas.StdJSON{})))
	}
	store, err := saas.OpenSQL(ctx, "pgx", cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	return saas.ServeHTTP(ctx, cfg.Addr, saas.NetHTTPHandler(saas.New(store, saas.StdJSON{}, cfg.JWTSecret)))
}
