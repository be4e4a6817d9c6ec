package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// Trap T19 for cost (issue 43, item 3): a stack that burns extra CPU in
// its first requests — a stand-in for a JIT, 2 ms on its first request,
// halving every 30 — has its fixed-rate windows judged on their CPU:
// one whose first half cost clearly more than its second is flagged
// cost_warming and redone on the same process; a final window still
// flagged does not count for cost; and every window that counts for cost
// is one whose halves agree. (How close the warming stack's cost then
// comes to the plain one's depends on how fast its warm-up decays: what
// decays within a window's halves is caught, a slow tail is not.)
func TestWarmingStackIsNotChargedItsWarmUp(t *testing.T) {
	path := writeFile(t, `
workload:
  name: flaky
  cases:
    - {name: ok, method: GET, path: /ok}
profile: quick
protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 3
  cases: [ok]
  boot_starts: 0
  latency: {rate: 200}
  calls: [cost]
  gate: off
stacks:
  - name: plain
    dir: .
    start: `+flakyBin+`
  - name: warming
    dir: .
    start: `+flakyBin+`
    env: {BURN_US: "2000", BURN_HALF: "30"}
`)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	res, err := journal.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, w := range res.Latency {
		if w.Stack == "warming" && w.HasFlag(journal.FlagCostWarming) {
			flagged++
			if w.Final && !strings.Contains(strings.Join(w.Reasons, " "), "warming up") {
				t.Errorf("%s: flagged without its reason: %v", w.Key, w.Reasons)
			}
		}
	}
	if flagged == 0 {
		t.Fatal("no window of the warming stack was flagged cost_warming")
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lc, ok := m.LatencyCell("warming", "ok", 4)
	if !ok {
		t.Fatal("no latency cell of the warming stack")
	}
	byKey := map[string]journal.Window{}
	for _, w := range res.FinalLatencyWindows() {
		byKey[w.Key] = w
	}
	counted := 0
	for i, wf := range lc.PerWindow {
		key := plan.LatencyKey(plan.Window{Key: plan.WindowKey(wf.Round, "warming", "ok", 4)})
		w := byKey[key]
		if w.HasFlag(journal.FlagCostWarming) != (wf.CostDrop != "" && strings.Contains(wf.CostDrop, "warming")) {
			t.Errorf("window %d (%s): flagged %v, cost_drop %q", i, key, w.Flags, wf.CostDrop)
		}
		if wf.Counted && wf.CostDrop == "" {
			counted++
			f, s := w.Server.FirstHalfCPUSeconds, w.Server.SecondHalfCPUSeconds
			if f > (1+CostWarmingTolerance)*s && f-s > costWarmingMinSeconds {
				t.Errorf("%s counts for cost with halves %.1f and %.1f ms", key, 1e3*f, 1e3*s)
			}
		}
	}
	if counted == 0 {
		t.Errorf("no window of the warming stack counts for cost: %+v", lc.PerWindow)
	}
	// What the flagged tries would have charged: more a request than the
	// windows that count.
	var flaggedCost float64
	n := 0
	for _, w := range res.Latency {
		if w.Stack == "warming" && w.HasFlag(journal.FlagCostWarming) && w.Load != nil && w.Load.ThroughputRPS > 0 {
			flaggedCost += w.Server.Cores * 1e6 / w.Load.ThroughputRPS
			n++
		}
	}
	cl := m.Steps[0].CostLoads
	if cl == nil || cl.ToFixedMicros <= 0 || n == 0 || flaggedCost/float64(n) <= cl.ToFixedMicros {
		t.Errorf("flagged tries' server cost %.0f µs a request (%d), the warming stack's counted cost %+v: the flagged tries must be the dearer", flaggedCost/float64(max(n, 1)), n, cl)
	}
	t.Logf("flagged %d tries; cost plain %.1f, warming %.1f µs a request", flagged, cl.FromFixedMicros, cl.ToFixedMicros)
}
