package analysis

import (
	"math"
	"strings"
	"testing"
)

// The between-run spread is the standard deviation of the log of each
// run's figure, the median over the cells: three runs whose throughput
// (all stacks, every window) is ×1, ×1.02 and ×0.98 have a spread of
// about 2 %; their cost, moved ×1, ×1.05, ×0.95, about 5 %.
func TestBetweenRunSpread(t *testing.T) {
	var runs []*Result
	for i, f := range []float64{1, 1.02, 0.98} {
		res := latencyJournal(t, 9, 1, false)
		cf := []float64{1, 1.05, 0.95}[i]
		for j := range res.Windows {
			res.Windows[j].Load.ThroughputRPS *= f
			res.Windows[j].Process.Seq = j + 1 // a fresh process a window
		}
		for j := range res.Latency {
			w := &res.Latency[j]
			w.Server.Cores, w.Database.Cores = 0.25*cf, 0.1*cf
			w.Process.Seq = 100 + j
		}
		m, err := FromResults(res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m.Header.RunID = string(rune('a' + i))
		runs = append(runs, m)
	}
	sm, err := BetweenRunSpread(runs)
	if err != nil {
		t.Fatal(err)
	}
	want := func(fs ...float64) float64 {
		var l []float64
		mean := 0.0
		for _, f := range fs {
			l = append(l, math.Log(f))
			mean += math.Log(f) / float64(len(fs))
		}
		ss := 0.0
		for _, x := range l {
			ss += (x - mean) * (x - mean)
		}
		return math.Sqrt(ss / float64(len(fs)-1))
	}
	if math.Abs(sm.ThroughputSD-want(1, 1.02, 0.98)) > 0.002 || sm.ThroughputCells != 2 {
		t.Errorf("throughput spread %.4f over %d cells; want %.4f over 2", sm.ThroughputSD, sm.ThroughputCells, want(1, 1.02, 0.98))
	}
	if math.Abs(sm.CostSD-want(1, 1.05, 0.95)) > 0.002 || sm.CostCells != 2 {
		t.Errorf("cost spread %.4f over %d cells; want %.4f over 2", sm.CostSD, sm.CostCells, want(1, 1.05, 0.95))
	}
	if len(sm.Runs) != 3 {
		t.Errorf("runs %v", sm.Runs)
	}
	if _, err := BetweenRunSpread(runs[:2]); err == nil || !strings.Contains(err.Error(), "3 or more runs") {
		t.Errorf("two runs: %v; want a refusal naming the three needed", err)
	}
	runs[2].Header.Host.Cores = 64
	if _, err := BetweenRunSpread(runs); err == nil || !strings.Contains(err.Error(), "one machine") {
		t.Errorf("runs of two machines: %v; want a refusal", err)
	}
}
