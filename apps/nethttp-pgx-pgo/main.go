// Command nethttp-pgx-pgo is nethttp-pgx built with profile-guided
// optimisation: this file is a copy of ../nethttp-pgx/main.go and all other
// code is shared through saas, so the only difference is the default.pgo
// beside it, which go build reads from the main package's directory
// (refresh it with stackbench pgo; see docs/stacks.md).
//
// nethttp-pgx is the reference server of the SaaS-slice workload:
// net/http's ServeMux, a pgx v5 native pool of 10 connections, encoding/json
// and golang-jwt. It listens on 127.0.0.1:$PORT and reads DATABASE_URL and
// JWT_SECRET; with STACKBENCH_WORKLOAD=micro it serves the micro workload
// instead and needs no database. SIGTERM or SIGINT stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/stackbench/stackbench/apps/internal/saas"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "nethttp-pgx-pgo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	cfg, err := saas.ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	var h http.Handler
	if cfg.Workload == saas.WorkloadMicro {
		h = saas.NetHTTPMicroHandler(saas.NewMicro(saas.StdJSON{}))
	} else {
		store, err := saas.OpenPgx(ctx, cfg.DatabaseURL)
		if err != nil {
			return err
		}
		defer store.Close()
		h = saas.NetHTTPHandler(saas.New(store, saas.StdJSON{}, cfg.JWTSecret))
	}
	return saas.ServeHTTP(ctx, cfg.Addr, h)
}
