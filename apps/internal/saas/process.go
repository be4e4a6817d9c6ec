package saas

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Main is a reference server's process: it reads the Config from the
// environment, calls serve with a context that SIGTERM or SIGINT cancels,
// and exits 1 with the error, prefixed by the server's name, when serve or
// the configuration fails.
func Main(name string, serve func(ctx context.Context, cfg Config) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := runServer(ctx, serve)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func runServer(ctx context.Context, serve func(ctx context.Context, cfg Config) error) error {
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	return serve(ctx, cfg)
}

// ServeNetHTTPPgx is nethttp-pgx's serve: net/http's ServeMux, the pgx
// native pool and encoding/json (the micro workload needs no database).
// nethttp-pgx-pgo serves with it too, so the two binaries differ only in
// the profile their build reads.
func ServeNetHTTPPgx(ctx context.Context, cfg Config) error {
	if cfg.Workload == WorkloadMicro {
		return ServeHTTP(ctx, cfg.Addr, NetHTTPMicroHandler(NewMicro(StdJSON{})))
	}
	store, err := OpenPgx(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	return ServeHTTP(ctx, cfg.Addr, NetHTTPHandler(New(store, StdJSON{}, cfg.JWTSecret)))
}
