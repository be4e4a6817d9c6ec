package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// TestStacksWithTheirOwnBasePaths: one stack serves at /, the other only
// under /api (its /health included); with base: /api on the second, its
// health check, setup steps, parity requests and windows all go under
// /api, and both pass parity and are measured.
func TestStacksWithTheirOwnBasePaths(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	src := bins.OwnAppFile(`  - name: api
    dir: .
    base: /api
    start: env BASE=/api ` + ownAppBin + "\n")
	src = strings.Replace(src, "rounds: 2", "rounds: 1", 1)
	path := writeFile(t, src)
	dir := filepath.Join(t.TempDir(), "results")
	pools := t.TempDir()
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := f.Stack("api"); s.Base != "/api" || s.Health != "/api/health" {
		t.Fatalf("stack api: base %q health %q, want /api and /api/health", s.Base, s.Health)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if _, err := Run(context.Background(), Options{File: f, Plan: p, Dir: dir, Stackbench: stackbenchBin, Log: &log, ToolVersion: "test", PoolDir: pools}); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.Parity) != 1 || !res.Parity[0].Passed {
		t.Fatalf("parity %+v: both stacks answer alike, one under /api", res.Parity)
	}
	if len(byKey) != 4 {
		t.Fatalf("%d windows, want 4", len(byKey))
	}
	for k, w := range byKey {
		// A request outside /api answers 404 on stack api: its window
		// would fail.
		if !w.Valid() || w.Load.Successes == 0 || w.Load.Failures() != 0 {
			t.Errorf("%s: valid %v reasons %v, %d successes", k, w.Valid(), w.Reasons, w.Load.Successes)
		}
	}
	// The pools hold the paths as the workload writes them; the base path
	// is the URL's, put before them by the generator.
	b, _ := os.ReadFile(filepath.Join(pools, "api", "article.p1.jsonl"))
	if !strings.Contains(string(b), `"/articles/bench-1"`) {
		t.Errorf("stack api's pool: %.200s", b)
	}
}
