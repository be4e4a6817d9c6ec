package stack

import (
	"context"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// Two parity gates on one server (two runs, or parallel tests sharing a
// cluster) copy the seed under names of their own: in CI one test's gate
// dropped stackbench_parity_0 while another's stack was connecting to it.
// The stacks here exit at once; each gate's copies are made first.
func TestParityGatesOnOneServerHaveCopiesOfTheirOwn(t *testing.T) {
	ctx := context.Background()
	w, _ := workload.Builtin("saas-slice", workload.DefaultJWTSecret)
	var made [][]string
	for _, names := range []string{"", "", "stackbench_run_0badcafe_parity"} {
		db := &Database{AdminURL: pgtest.Cluster(t).AdminURL(), template: pgfix.TemplateDatabase}
		stacks := []plan.Stack{{Name: "a", Dir: t.TempDir(), Start: "exit 3", Health: "/health"}, {Name: "b", Dir: t.TempDir(), Start: "exit 3", Health: "/health"}}
		results, err := Parity(ctx, stacks, ParityOptions{Workload: w, JWTSecret: workload.DefaultJWTSecret, Database: db, DatabaseNames: names, LogDir: t.TempDir(), Progress: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 2 || results[0].OK() {
			t.Fatalf("stacks that exit: %+v", results)
		}
		made = append(made, db.made)
		t.Cleanup(func() { db.Close(false) })
	}
	seen := map[string]bool{}
	for i, names := range made {
		if len(names) != 2 {
			t.Fatalf("gate %d made %v, want a copy per stack", i, names)
		}
		for _, n := range names {
			if seen[n] {
				t.Errorf("gate %d's copy %s was another gate's too (%v)", i, n, made)
			}
			seen[n] = true
		}
	}
	if want := "stackbench_run_0badcafe_parity_0"; made[2][0] != want {
		t.Errorf("named gate's first copy %s, want %s", made[2][0], want)
	}
	if !strings.HasPrefix(made[0][1], "stackbench_parity_") || !strings.HasSuffix(made[0][1], "_1") {
		t.Errorf("default names %v, want stackbench_parity_<id>_0 and _1", made[0])
	}
}
