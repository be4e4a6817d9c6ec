package analysis

import (
	"math"
	"testing"

	"github.com/stackbench/stackbench/internal/stats"
)

// TestHeldSameShowsItsChangeInterval: a step that would be same (its 90 %
// interval within ±5 %, its 95 % one not) but is held undecided until the
// run's first look shows the 95 % interval an undecided step shows, not
// the 90 % one same read.
func TestHeldSameShowsItsChangeInterval(t *testing.T) {
	logs := []float64{-6, -5.5, 2, -3, 1.5, -1, 0.5, -4, -2, 1, -2.5, -6.5, 0}
	from, to := stats.Side{Valid: true}, stats.Side{Valid: true}
	for i, l := range logs {
		from.Windows, to.Windows = append(from.Windows, 1000), append(to.Windows, 1000*math.Exp(1.25*l/100))
		from.Rounds, to.Rounds = append(from.Rounds, i+1), append(to.Rounds, i+1)
	}
	v := stats.DecideBy(stats.Paired, from, to, 0.05, 0.05)
	if v.Call != stats.CallSame || v.Shift.Confidence >= 0.95 {
		t.Fatalf("the setup needs a same call read from its 90 %% interval: %+v", v)
	}
	cell := Cell{State: CellValid, Counted: len(logs)}
	steps := []Step{{Throughput: changeOf(v, cell, cell), PerCPU: changeOf(v, cell, cell)}}
	holdUntilTheFirstLook(steps, &RoundsInfo{Looks: []int{20}})
	c := steps[0].Throughput
	want := v.ChangeShift()
	if c.Call != stats.CallUndecided || c.Confidence != want.Confidence || c.CILowPct == nil || *c.CILowPct != 100*want.Lo || *c.CIHighPct != 100*want.Hi {
		t.Errorf("held: %s %v … %v at %v; want undecided at %v … %v, %v", c.Call, deref(c.CILowPct), deref(c.CIHighPct), c.Confidence, 100*want.Lo, 100*want.Hi, want.Confidence)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
