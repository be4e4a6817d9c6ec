package analysis

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/stats"
)

// Issue 43, item 5: cost is called across runs (lower is better), and
// every cross-run call says the smallest change it would catch in 80 % of
// runs. Run B's stacks spend 40 % more server CPU per request at the
// fixed rate than run A's; throughput is alike.
func TestCostIsCalledAcrossRuns(t *testing.T) {
	runOf := func(serverCores float64) *Result {
		res := latencyJournal(t, 9, 1, false)
		for i := range res.Latency {
			w := &res.Latency[i]
			w.Server.Cores, w.Database.Cores = serverCores*(1+0.002*float64(w.Round%3)), 0.1
		}
		m, err := FromResults(res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := runOf(0.25), runOf(0.35)
	steps := CompareRuns([]*Result{a}, []*Result{b}, []string{"a", "b"}, a.Header.Cases, []int{4},
		CrossRunOptions{Family: stats.FamilyRun, MinEffect: 0.05, Alpha: 0.05, BetweenRunSD: DefaultBetweenRunSpread})
	if len(steps) != 2 {
		t.Fatalf("%d steps, want one per stack", len(steps))
	}
	for _, s := range steps {
		if s.Cost == nil || s.Cost.Call != stats.CallLoss || !s.Cost.LowerIsBetter || s.Cost.EstimatePct < 25 {
			t.Errorf("%s: cost %+v; want a loss of about +29 %% ((0.35+0.1)/(0.25+0.1))", s.From, s.Cost)
			continue
		}
		if s.Cost.Detectable80Pct <= 0 || !strings.Contains(s.Cost.Reason, "in 80 % of runs") ||
			s.Throughput.Detectable80Pct <= 0 {
			t.Errorf("%s: no power stated: cost %+v, throughput %+v", s.From, s.Cost, s.Throughput)
		}
		// With a run-to-run spread of 3 % a run, one run a side cannot
		// catch a change under about (1.96 + 0.84) × √2 × 3 % ≈ 12 %.
		if s.Cost.Detectable80Pct < 11 {
			t.Errorf("%s: power ±%.1f %%; one run a side with 3 %% between runs cannot do better than about 12 %%", s.From, s.Cost.Detectable80Pct)
		}
	}
}
