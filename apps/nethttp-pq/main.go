// Command nethttp-pq is the SaaS-slice reference server on database/sql
// over lib/pq: nethttp-sqlpgx with the driver swapped, and nothing else
// changed (net/http's ServeMux, encoding/json, saas.SQLStore). lib/pq has
// no implicit statement cache (a query with arguments is parsed anew every
// time), so saas.SQLStore prepares the three queries explicitly once at
// start, and database/sql prepares each on a connection the first time it
// runs there: every query is parsed once per connection, as with pgx. The
// pool keeps 10 open and 10 idle connections. STACKBENCH_WORKLOAD=micro
// serves the micro workload; SIGTERM stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"

	_ "github.com/lib/pq" // registers the "postgres" database/sql driver

	"github.com/stackbench/stackbench/apps/internal/saas"
)

func main() { saas.Main("nethttp-pq", run) }

func run(ctx context.Context, cfg saas.Config) error {
	if cfg.Workload == saas.WorkloadMicro {
		return saas.ServeHTTP(ctx, cfg.Addr, saas.NetHTTPMicroHandler(saas.NewMicro(saas.StdJSON{})))
	}
	store, err := saas.OpenSQL(ctx, "postgres", cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	return saas.ServeHTTP(ctx, cfg.Addr, saas.NetHTTPHandler(saas.New(store, saas.StdJSON{}, cfg.JWTSecret)))
}
