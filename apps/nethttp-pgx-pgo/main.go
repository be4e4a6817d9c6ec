// Command nethttp-pgx-pgo is nethttp-pgx built with profile-guided
// optimisation: it serves with the same saas.ServeNetHTTPPgx, so the only
// difference is the default.pgo beside this file, which go build reads from
// the main package's directory (refresh it with stackbench pgo; see
// docs/stacks.md).
//
// Build: go build -o bin/server .
package main

import "github.com/stackbench/stackbench/apps/internal/saas"

func main() { saas.Main("nethttp-pgx-pgo", saas.ServeNetHTTPPgx) }
