// Command tfb-nethttp-pgx is the reference server of the tfb workload
// (TechEmpower's test types, docs/workloads.md): net/http's ServeMux, a
// pgx v5 native pool, encoding/json and html/template. It listens on
// $HOST:$PORT (HOST 127.0.0.1 when unset) and reads DATABASE_URL, falling
// back to the connection string TFB entries hard-code. Queries are sent as
// one pgx batch of single-row SELECTs (one statement per row, one round
// trip); updates read the same way and write in one UPDATE … FROM unnest
// (batched writes, as TFB allows). SIGTERM or SIGINT stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stackbench/stackbench/apps/internal/saas"
)

// tfbURL is the database TFB entries dial when nothing says otherwise.
const tfbURL = "postgres://benchmarkdbuser:benchmarkdbpass@tfb-database:5432/hello_world"

// poolConns is the pool's size, as the saas-slice reference servers'.
const poolConns = 10

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := serve(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "tfb-nethttp-pgx: %v\n", err)
		os.Exit(1)
	}
}

func serve(ctx context.Context) error {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		url = tfbURL
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	cfg.MaxConns, cfg.MinConns = poolConns, poolConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	host, port := os.Getenv("HOST"), os.Getenv("PORT")
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "8080"
	}
	return saas.ServeHTTP(ctx, net.JoinHostPort(host, port), newServer(pool).handler())
}
