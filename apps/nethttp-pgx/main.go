// Command nethttp-pgx is the reference server of the SaaS-slice workload:
// net/http's ServeMux, a pgx v5 native pool of 10 connections, encoding/json
// and golang-jwt. It listens on $HOST:$PORT (HOST 127.0.0.1 when unset) and
// reads DATABASE_URL and JWT_SECRET; with STACKBENCH_WORKLOAD=micro it serves
// the micro workload instead and needs no database. SIGTERM or SIGINT stops it gracefully.
//
// Build: go build -o bin/server .
package main

import "github.com/stackbench/stackbench/apps/internal/saas"

func main() { saas.Main("nethttp-pgx", saas.ServeNetHTTPPgx) }
