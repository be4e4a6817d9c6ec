package analysis

import (
	"math"
	"strings"
	"testing"
)

// Issue 43, item 1: a step's fixed-rate cost is shown beside its cost
// near saturation, each labelled with its load, and a step whose two
// disagree by more than the minimum effect says its effect depends on
// load. Here both stacks cost the same at saturation (1 core at ~1000
// req/s closed loop); at the fixed rate of ~500 req/s b's server spends
// 1.6× a's CPU.
func TestCostIsShownAtTwoLoads(t *testing.T) {
	for _, c := range []struct {
		bCores  float64
		depends bool
	}{{1.6, true}, {1.0, false}} {
		res := latencyJournal(t, 9, 1, false)
		for i := range res.Latency {
			w := &res.Latency[i]
			w.Server.Cores, w.Database.Cores = 0.25, 0.1
			if w.Stack == "b" {
				w.Server.Cores *= c.bCores * (1 + 0.001*float64(w.Round%3))
			}
		}
		m, err := FromResults(res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cl := m.Steps[0].CostLoads
		if cl == nil {
			t.Fatalf("b at %.1f×: no cost at two loads", c.bCores)
		}
		if cl.RateRPS < 499 || cl.RateRPS > 502 || math.Abs(cl.FromFixedMicros-700) > 1 || cl.SatWindows != 9 ||
			cl.FromSatMicros < 990 || cl.FromSatMicros > 1010 || math.Abs(cl.SatChangePct) > 1 {
			t.Errorf("b at %.1f×: %+v; want a at 700 µs at ~500 req/s, both ~1000 µs at saturation over 9 windows", c.bCores, *cl)
		}
		if cl.DependsOnLoad != c.depends || c.depends && !strings.Contains(cl.Note, "depends on load") {
			t.Errorf("b at %.1f×: depends on load %v (%q); want %v", c.bCores, cl.DependsOnLoad, cl.Note, c.depends)
		}
	}
}
