package stack

import (
	"slices"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// A tfb stack and a stack of a workload of the file's own (an app that
// may take its connection as host, user and database) get DATABASE_URL's
// parts as the libpq variables; the built-in saas-slice's do not.
func TestTFBAndOwnWorkloadStacksGetLibpqVariables(t *testing.T) {
	url := "postgres://stackbench:s%40cret@127.0.0.1:40123/stackbench_run_1?sslmode=disable"
	for _, wl := range []string{"tfb", "conduit"} {
		env := Env(plan.Stack{Name: "a"}, 3000, Harness{Workload: wl, DatabaseURL: url})
		for _, kv := range []string{"PGHOST=127.0.0.1", "PGPORT=40123", "PGDATABASE=stackbench_run_1", "PGUSER=stackbench", "PGPASSWORD=s@cret", "PGSSLMODE=disable"} {
			if !slices.Contains(env, kv) {
				t.Errorf("%s: no %s in %v", wl, kv, env)
			}
		}
	}
	other := Env(plan.Stack{Name: "a"}, 3000, Harness{Workload: "saas-slice", DatabaseURL: url})
	if slices.ContainsFunc(other, func(kv string) bool { return kv[:2] == "PG" }) {
		t.Errorf("a saas-slice stack got libpq variables: %v", other)
	}
}
