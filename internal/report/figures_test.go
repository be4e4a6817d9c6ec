package report

import (
	"github.com/stackbench/stackbench/internal/analysis"
	"math"
	"testing"

	"github.com/stackbench/stackbench/internal/stats"
)

// TestHeaderAndStepsFollowTheirDefinitions re-derives, from the fixture's
// cells, the dispersion, every step's call, the group summaries' counts and
// the cost model's rps per core, as the docs define them.
func TestHeaderAndStepsFollowTheirDefinitions(t *testing.T) {
	m := fixtureModel(t)
	// The dispersion: each valid cell's robust CV is 1.4826 × MAD ÷ median
	// of its counted windows' throughput, computed here the slow way; the
	// header gives their median and largest.
	var cvs []float64
	maxCV, outliers := 0.0, 0
	for _, c := range m.Cells {
		if c.State != analysis.CellValid || c.Counted < 3 {
			continue
		}
		tp := insertionSortedCopy(c.CountedValues(func(w analysis.WindowFigures) float64 { return w.ThroughputRPS }))
		med := middleOf(tp)
		var dev []float64
		for _, v := range tp {
			dev = append(dev, math.Abs(v-med))
		}
		cv := 1.4826 * middleOf(insertionSortedCopy(dev)) / med
		if math.Abs(cv-c.ThroughputCV) > 1e-12 {
			t.Errorf("%s/%s/c=%d: robust CV %v, want %v", c.Stack, c.Case, c.Concurrency, c.ThroughputCV, cv)
		}
		cvs = append(cvs, cv)
		maxCV = max(maxCV, cv)
		outliers += c.Outliers
	}
	d := m.Header.Dispersion
	if !d.Known || d.Cells != len(cvs) || d.MaxCV != maxCV || math.Abs(d.MedianCV-middleOf(insertionSortedCopy(cvs))) > 1e-12 || d.Outliers != outliers {
		t.Errorf("dispersion %+v; want %d cells, largest %v", d, len(cvs), maxCV)
	}
	tp := func(w analysis.WindowFigures) float64 { return w.ThroughputRPS }
	cpu := func(w analysis.WindowFigures) float64 { return w.PerCPUSecond }
	checked := 0
	// The calls are the ones stats.DecideFamily makes from the counted
	// windows of every step at once (false calls controlled over the run),
	// and their figures are those decisions'.
	var pairs []stats.SidePair
	for _, s := range m.Steps {
		from, _ := m.Cell(s.From, s.Case, s.Concurrency)
		to, _ := m.Cell(s.To, s.Case, s.Concurrency)
		for _, metric := range []func(analysis.WindowFigures) float64{tp, cpu} {
			pairs = append(pairs, stats.SidePair{
				From: stats.Side{Valid: from.State == analysis.CellValid, Windows: from.CountedValues(metric)},
				To:   stats.Side{Valid: to.State == analysis.CellValid, Windows: to.CountedValues(metric)}})
		}
	}
	verdicts := stats.DecideFamily(stats.FamilyRun, m.Header.Design, pairs, m.Header.MinEffect, m.Header.Alpha)
	valid := 0
	for _, v := range verdicts {
		if v.Call != stats.CallInvalid {
			valid++
		}
	}
	if m.Header.Family != "run" || m.Header.FamilyCalls != valid {
		t.Errorf("family %q over %d calls, want run over the %d step-metrics that are not invalid", m.Header.Family, m.Header.FamilyCalls, valid)
	}
	for i, s := range m.Steps {
		from, _ := m.Cell(s.From, s.Case, s.Concurrency)
		to, _ := m.Cell(s.To, s.Case, s.Concurrency)
		for j, k := range []struct {
			name   string
			ch     analysis.Change
			metric func(analysis.WindowFigures) float64
		}{
			{"throughput", s.Throughput, tp},
			{"req/CPU-s", s.PerCPU, cpu},
		} {
			valid := from.State == analysis.CellValid && to.State == analysis.CellValid
			if !valid {
				if k.ch.Call != stats.CallInvalid || k.ch.Bounded() || k.ch.Reason == "" {
					t.Errorf("%s %s → %s %s c=%d: %+v, want invalid with a reason (a side is %s/%s)", k.name, s.From, s.To, s.Case, s.Concurrency, k.ch, from.State, to.State)
				}
				continue
			}
			checked++
			v := verdicts[2*i+j]
			if k.ch.Call != v.Call || math.Abs(k.ch.EstimatePct-100*v.Shift.Estimate) > 1e-9 || k.ch.Bounded() != v.Shift.Bounded {
				t.Errorf("%s %s → %s %s c=%d: %+v; the counted windows give %+v", k.name, s.From, s.To, s.Case, s.Concurrency, k.ch, v)
			}
			if k.ch.Bounded() && (math.Abs(*k.ch.CILowPct-100*v.Shift.Lo) > 1e-9 || math.Abs(*k.ch.CIHighPct-100*v.Shift.Hi) > 1e-9) {
				t.Errorf("%s %s → %s %s c=%d: interval %v … %v, want %v … %v", k.name, s.From, s.To, s.Case, s.Concurrency, *k.ch.CILowPct, *k.ch.CIHighPct, 100*v.Shift.Lo, 100*v.Shift.Hi)
			}
			if k.ch.FromWindows != from.Counted || k.ch.ToWindows != to.Counted {
				t.Errorf("%s %s → %s: windows %d/%d, want %d/%d", k.name, s.From, s.To, k.ch.FromWindows, k.ch.ToWindows, from.Counted, to.Counted)
			}
		}
	}
	if checked == 0 {
		t.Fatal("the fixture has no step between valid cells")
	}
	for _, g := range m.Groups {
		calls := 0
		for _, n := range g.Calls {
			calls += n
		}
		if calls != g.Cases || g.Defined != g.Cases-g.Calls[stats.CallInvalid] || g.MinPct > g.MedianPct || g.MedianPct > g.MaxPct {
			t.Errorf("group %s → %s c=%d %s: %d cases, %d calls, %d defined, %g ≤ %g ≤ %g", g.From, g.To, g.Concurrency, g.Group, g.Cases, calls, g.Defined, g.MinPct, g.MedianPct, g.MaxPct)
		}
	}
	if m.Cost == nil {
		t.Fatal("no cost section")
	}
	for _, in := range m.Cost.Inputs {
		if in.Problem != "" {
			continue
		}
		// Equal weights: the harmonic mean of the cells' req/CPU-s.
		sumInverse := 0.0
		for _, name := range m.Cost.Cases {
			c, _ := m.Cell(in.Stack, name, m.Cost.Concurrency)
			sumInverse += 1 / c.PerCPUSecond.Median
		}
		if want := float64(len(m.Cost.Cases)) / sumInverse; math.Abs(in.RPSPerCore-want) > 1e-9*want {
			t.Errorf("cost input %s: %g rps per core, want the harmonic mean of its cells' req/CPU-s, %g", in.Stack, in.RPSPerCore, want)
		}
	}
}

func insertionSortedCopy(x []float64) []float64 {
	out := append([]float64(nil), x...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j-1] > out[j]; j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}

// middleOf is the usual median of sorted values.
func middleOf(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
