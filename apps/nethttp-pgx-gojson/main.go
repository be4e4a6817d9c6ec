// Command nethttp-pgx-gojson is the SaaS-slice reference server with
// github.com/goccy/go-json as its JSON layer: nethttp-pgx with the gojson
// codec in place of encoding/json, and nothing else changed (net/http's
// ServeMux, pgx v5 pool of 10). Its bodies are byte-identical to
// nethttp-pgx's (no HTML escaping). STACKBENCH_WORKLOAD=micro serves the
// micro workload; SIGTERM stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"

	"github.com/stackbench/stackbench/apps/internal/saas"
	"github.com/stackbench/stackbench/apps/internal/saas/gojson"
)

func main() { saas.Main("nethttp-pgx-gojson", run) }

func run(ctx context.Context, cfg saas.Config) error {
	if cfg.Workload == saas.WorkloadMicro {
		return saas.ServeHTTP(ctx, cfg.Addr, saas.NetHTTPMicroHandler(saas.NewMicro(gojson.Codec{})))
	}
	store, err := saas.OpenPgx(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	return saas.ServeHTTP(ctx, cfg.Addr, saas.NetHTTPHandler(saas.New(store, gojson.Codec{}, cfg.JWTSecret)))
}
