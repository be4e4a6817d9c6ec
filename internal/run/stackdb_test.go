package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// Each stack meets the same database: a stack-scoped setup step that
// creates a row runs on each stack's own copy of the template, so both
// stacks' windows see the seed plus that one row, not the second stack
// the first's row as well.
func TestEveryStackMeetsTheSameDatabase(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, `
database: `+admin+`
workload:
  name: shop
  setup:
    - name: buy
      method: POST
      path: /orders
      headers: {Content-Type: application/json}
      body: '{"userId":4242,"amount":19.99,"currency":"USD"}'
      expect: [201]
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
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := runtest.Finals(t, dir)
	if len(byKey) != 2 {
		t.Fatalf("%d windows, want one per stack", len(byKey))
	}
	for k, w := range byKey {
		if w.DBBefore == nil || w.DBBefore.OrdersRows != pgfix.SeedOrders+1 {
			t.Errorf("%s: the database before the window %+v; want the seed's %d orders and the setup's one", k, w.DBBefore, pgfix.SeedOrders)
		}
	}
}
