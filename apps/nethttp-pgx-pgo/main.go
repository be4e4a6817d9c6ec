// Command nethttp-pgx-pgo is nethttp-pgx built with profile-guided
// optimisation: it serves with the same saas.ServeNetHTTPPgx, so the only
// difference is the CPU profile beside this file, cpu.pgo, which its build
// names (refresh it with stackbench pgo; see docs/stacks.md). It is not
// called default.pgo: go build would then read it for every build of this
// package, and go test ./... would compile the standard library and every
// dependency a second time with the profile for a package without tests.
//
// Build: go build -pgo=cpu.pgo -o bin/server .
package main

import "github.com/stackbench/stackbench/apps/internal/saas"

func main() { saas.Main("nethttp-pgx-pgo", saas.ServeNetHTTPPgx) }
