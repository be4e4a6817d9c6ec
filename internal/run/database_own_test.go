package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// Trap T27 (issue 43, item 2): a stack's cost counts its own database
// backends, not the whole postmaster tree. During the run a loop of
// CPU-bound queries on another database of the same cluster burns a
// backend's worth of CPU; it shows in each window's database figure and
// not in the stack's own part, which the cost is computed from.
func TestCostCountsOnlyTheStacksOwnBackends(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, `
database: `+admin+`
workload:
  name: shop
  cases:
    - name: user
      path: /users/4242
      database: true
protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  boot_starts: 0
  gate: off
`+strings.ReplaceAll(refStacks(), "    start: "+refServerBin+"\n", "    start: env STACKBENCH_WORKLOAD=saas-slice "+refServerBin+"\n"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	planted := make(chan int)
	go func() {
		n := 0
		defer func() { planted <- n }()
		for ctx.Err() == nil {
			if _, err := conn.Exec(ctx, "SELECT count(*) FROM generate_series(1, 300000)"); err != nil {
				return
			}
			n++
		}
	}()
	dir := filepath.Join(t.TempDir(), "results")
	_, err = runFileNoParity(t, context.Background(), path, dir, plan.Overrides{}, false)
	cancel()
	if n := <-planted; n < 5 {
		t.Fatalf("the planted loop ran %d queries; it must run during the windows", n)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(byKey) != 2 {
		t.Fatalf("%d windows, want 2", len(byKey))
	}
	var background, wall float64
	for k, w := range byKey {
		if w.DatabaseOwn == nil || w.Load == nil {
			t.Fatalf("%s: no own database figure %+v or no load", k, w.DatabaseOwn)
		}
		own, all := w.DatabaseOwn.CPUSeconds, w.Database.CPUSeconds
		// The stack's pool (a few backends) served the window: some CPU.
		// The planted backend is in the tree's figure only: it used most
		// of what the tree did beyond the stack's own.
		if own <= 0 || w.DatabaseOwn.Processes < 1 || w.DatabaseOwn.Processes > 8 {
			t.Errorf("%s: own backends %+v; want the stack's pool", k, *w.DatabaseOwn)
		}
		if own > all {
			t.Errorf("%s: own backends %.3f CPU-s, more than the whole database's %.3f", k, own, all)
		}
		background, wall = background+all-own, wall+w.WallSeconds
	}
	// The planted loop runs all along (a busy host may starve it in a
	// window): over the windows it is in the database's figure and not
	// the stack's own.
	if background < 0.05*wall {
		t.Errorf("database CPU beyond the stack's own backends: %.3f CPU-s over %.2f s of windows; the planted loop's must be there", background, wall)
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Cells {
		for _, w := range c.PerWindow {
			key := plan.WindowKey(w.Round, c.Stack, c.Case, c.Concurrency)
			jw := byKey[key]
			want := (jw.Server.Cores + jw.DatabaseOwn.Cores) * 1e6 / jw.Load.ThroughputRPS
			if w.DBOwnCores == nil || diffRel(w.CostMicros, want) > 1e-9 {
				t.Errorf("%s: cost %.2f µs per request, want server + own backends = %.2f", key, w.CostMicros, want)
			}
		}
	}
}

func diffRel(a, b float64) float64 {
	if b == 0 {
		return a
	}
	d := a/b - 1
	if d < 0 {
		return -d
	}
	return d
}
