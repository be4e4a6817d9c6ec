package main

import (
	"math"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/plan"

	"github.com/stackbench/stackbench/internal/report"
)

// TestCarryOverSplitsByWhoWentFirst: a step whose to side gains 10 % and
// whichever side goes second another 5 % shows +15.5 % in the rounds its
// from side went first and +4.8 % in the others, a difference of about
// +10 % whose interval excludes 0.
func TestCarryOverSplitsByWhoWentFirst(t *testing.T) {
	m := &report.Model{Steps: []analysis.Step{{Kind: analysis.StepAdjacent, From: "a", To: "b", Case: "user", Concurrency: 10},
		{Kind: analysis.StepOverall, From: "a", To: "b", Case: "user", Concurrency: 10}}} // the same pair: one row
	a := analysis.Cell{Stack: "a", Case: "user", Concurrency: 10}
	b := analysis.Cell{Stack: "b", Case: "user", Concurrency: 10}
	var planned []plan.Window
	for r := 1; r <= 12; r++ {
		aFirst := r%2 == 1
		noise := 1 + 0.01*float64(r%3)
		va, vb := 1000*noise, 1100*noise
		if aFirst {
			vb *= 1.05 // b went second
		} else {
			va *= 1.05
		}
		a.PerWindow = append(a.PerWindow, analysis.WindowFigures{Round: r, Counted: true, ThroughputRPS: va})
		b.PerWindow = append(b.PerWindow, analysis.WindowFigures{Round: r, Counted: true, ThroughputRPS: vb})
		order := []string{"a", "b"}
		if !aFirst {
			order = []string{"b", "a"}
		}
		for _, s := range order {
			planned = append(planned, plan.Window{Index: len(planned), Round: r, Stack: s, Case: "user", Concurrency: 10})
		}
	}
	// A window not counted does not enter its round.
	a.PerWindow = append(a.PerWindow, analysis.WindowFigures{Round: 1, Counted: false, ThroughputRPS: 1})
	m.Cells = []analysis.Cell{a, b}
	splits := carryOver(m, planned, 0.05)
	if len(splits) != 1 {
		t.Fatalf("%d splits", len(splits))
	}
	o := splits[0]
	if len(o.FromFirst) != 6 || len(o.ToFirst) != 6 || !o.DifferenceComputable {
		t.Fatalf("split %d / %d rounds, computable %v", len(o.FromFirst), len(o.ToFirst), o.DifferenceComputable)
	}
	for _, d := range o.FromFirst {
		if math.Abs(math.Expm1(d)-0.155) > 1e-9 {
			t.Errorf("from-first round: %+.4f, want +0.155", math.Expm1(d))
		}
	}
	want := 1.155/(1.1/1.05) - 1
	if d := o.Difference; math.Abs(d.Estimate-want) > 1e-9 || !d.Bounded || d.Lo <= 0 {
		t.Errorf("difference %+.4f (%+.4f … %+.4f), want %+.4f with an interval above 0", d.Estimate, d.Lo, d.Hi, want)
	}
	var out strings.Builder
	printCarryOver(&out, splits, 0.05, "williams")
	for _, s := range []string{"a → b", "+15.5 %", "+4.8 %", "+10.3 %", "1 interval(s) exclude 0"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
}
