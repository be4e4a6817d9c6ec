package stack

import (
	"slices"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

func TestTFBStacksGetLibpqVariables(t *testing.T) {
	url := "postgres://stackbench:s%40cret@127.0.0.1:40123/stackbench_run_1?sslmode=disable"
	env := Env(plan.Stack{Name: "a"}, 3000, Harness{Workload: "tfb", DatabaseURL: url})
	for _, kv := range []string{"PGHOST=127.0.0.1", "PGPORT=40123", "PGDATABASE=stackbench_run_1", "PGUSER=stackbench", "PGPASSWORD=s@cret", "PGSSLMODE=disable"} {
		if !slices.Contains(env, kv) {
			t.Errorf("no %s in %v", kv, env)
		}
	}
	other := Env(plan.Stack{Name: "a"}, 3000, Harness{Workload: "saas-slice", DatabaseURL: url})
	if slices.ContainsFunc(other, func(kv string) bool { return kv[:2] == "PG" }) {
		t.Errorf("a saas-slice stack got libpq variables: %v", other)
	}
}
