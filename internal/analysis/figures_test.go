package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/stats"
)

// TestCellFiguresComeFromTheMedianWindow checks a cell against
// docs/statistics.md by hand: every median figure is the lower-middle
// window's by throughput, spreads are each metric's own over the counted
// windows, CPU-µs/req is 10⁶ ÷ that window's req/CPU-s, peak RSS is the
// highest counted peak, and an uncounted window enters nothing.
func TestCellFiguresComeFromTheMedianWindow(t *testing.T) {
	win := func(rps, cores, db, gen, wait float64, rssMean, rssPeak int64, counted bool) WindowFigures {
		return WindowFigures{Counted: counted, ThroughputRPS: rps, ServerCores: cores, PerCPUSecond: rps / cores,
			DBCores: db, GeneratorCores: gen, GeneratorWaitCores: wait, RSSMeanBytes: rssMean, RSSPeakBytes: rssPeak}
	}
	c := Cell{PerWindow: []WindowFigures{
		win(1000, 1.0, 0.1, 0.5, 0.01, 10, 20, true),
		win(4000, 1.6, 0.4, 0.8, 0.04, 40, 50, true),
		win(3000, 1.5, 0.3, 0.7, 0.03, 30, 40, true), // the lower middle of 1000, 2000, 3000, 4000
		win(9999, 0.1, 9.9, 9.9, 9.99, 99, 999, false),
		win(2000, 0.5, 0.2, 0.6, 0.02, 20, 30, true),
	}}
	summarizeCell(&c)
	if c.State != CellValid || c.Windows != 5 || c.Counted != 4 {
		t.Fatalf("state %s, %d windows, %d counted; want valid, 5, 4", c.State, c.Windows, c.Counted)
	}
	mw := c.PerWindow[4] // 2000 rps: rank ⌊(4−1)/2⌋ = 1 of the counted windows
	if c.Throughput.Median != mw.ThroughputRPS || c.Throughput.Min != 1000 || c.Throughput.Max != 4000 {
		t.Errorf("throughput %+v; want median 2000 (the lower middle), range 1000–4000 without the uncounted window", c.Throughput)
	}
	if want := (4000.0 - 1000) / 2000; c.Throughput.Relative != want {
		t.Errorf("throughput relative spread %g, want (max−min) ÷ median = %g", c.Throughput.Relative, want)
	}
	if c.ServerCores != mw.ServerCores || c.DBCores != mw.DBCores || c.GeneratorCores != mw.GeneratorCores ||
		c.GeneratorWaitCores != mw.GeneratorWaitCores || c.RSSMeanBytes != mw.RSSMeanBytes {
		t.Errorf("cell %+v does not take its figures from the median window %+v", c, mw)
	}
	if c.PerCPUSecond.Median != mw.PerCPUSecond || c.PerCPUSecond.Median != c.Throughput.Median/c.ServerCores {
		t.Errorf("req/CPU-s median %g, want the median window's %g = req/s ÷ cores", c.PerCPUSecond.Median, mw.PerCPUSecond)
	}
	// req/CPU-s of the counted windows: 1000, 2500, 2000, 4000.
	if c.PerCPUSecond.Min != 1000 || c.PerCPUSecond.Max != 4000 {
		t.Errorf("req/CPU-s range %g–%g, want its own 1000–4000", c.PerCPUSecond.Min, c.PerCPUSecond.Max)
	}
	if want := (4000.0 - 1000) / mw.PerCPUSecond; math.Abs(c.PerCPUSecond.Relative-want) > 1e-12 {
		t.Errorf("req/CPU-s relative spread %g, want (max−min) ÷ the median window's = %g", c.PerCPUSecond.Relative, want)
	}
	if want := 1e6 / mw.PerCPUSecond; c.CPUMicrosPerRequest != want {
		t.Errorf("CPU-µs/req %g, want 10⁶ ÷ %g = %g", c.CPUMicrosPerRequest, mw.PerCPUSecond, want)
	}
	if c.RSSPeakBytes != 50 {
		t.Errorf("peak RSS %d, want 50, the highest counted peak (not the uncounted 999)", c.RSSPeakBytes)
	}
}

// TestStepFromAZeroFigure: a valid cell whose req/CPU-s is 0 (no server
// CPU measured) has no ratio to form: the call is invalid and says why,
// rather than calling a valid side invalid or inventing a change.
func TestStepFromAZeroFigure(t *testing.T) {
	cell := func(stack string, perCPU float64) Cell {
		c := Cell{Stack: stack, Case: "health", Concurrency: 10}
		for _, rps := range []float64{100, 110, 120, 130} {
			c.PerWindow = append(c.PerWindow, WindowFigures{Counted: true, ThroughputRPS: rps, PerCPUSecond: perCPU})
		}
		summarizeCell(&c)
		return c
	}
	s := NewStep(StepAdjacent, cell("a", 0), cell("b", 500), stats.Independent, stats.DefaultMinEffect, stats.DefaultAlpha)
	if s.PerCPU.Call != stats.CallInvalid || !strings.Contains(s.PerCPU.Reason, "not positive") {
		t.Errorf("req/CPU-s step from a zero figure: %+v; want invalid, and a reason naming the value", s.PerCPU)
	}
	if s.Throughput.Call == stats.CallInvalid || s.Throughput.EstimatePct != 0 {
		t.Errorf("throughput step between equal cells: %+v", s.Throughput)
	}
}

// TestStepsPairedByRound: under the paired design a step compares its two
// cells round by round, so a host drift that moves both cells of a round
// together cancels: the same windows compared as independent samples stay
// undecided, paired they call the 8 % loss, with the pairs it used.
func TestStepsPairedByRound(t *testing.T) {
	drift := []float64{1.00, 0.80, 1.15, 0.90, 1.05, 0.85, 1.10, 0.95, 1.20, 0.88, 1.02, 0.93}
	cell := func(stack string, factor float64) Cell {
		c := Cell{Stack: stack, Case: "health", Concurrency: 10, State: CellValid}
		for i, d := range drift {
			jitter := 1 + 0.01*float64(i%3-1)
			c.PerWindow = append(c.PerWindow, WindowFigures{Round: i + 1, Counted: true, ThroughputRPS: 1000 * d * factor * jitter, PerCPUSecond: 500 * factor})
		}
		summarizeCell(&c)
		c.State = CellValid
		return c
	}
	from, to := cell("a", 1), cell("b", 0.92)
	alpha := stats.SequentialAlpha(stats.Paired, stats.DefaultAlpha, 4, 12)
	paired := NewStep(StepAdjacent, from, to, stats.Paired, stats.DefaultMinEffect, alpha)
	if paired.Throughput.Call != stats.CallLoss || paired.Throughput.Pairs != len(drift) {
		t.Errorf("paired: %+v; want a loss over %d pairs", paired.Throughput, len(drift))
	}
	if e := paired.Throughput.EstimatePct; e > -7 || e < -9 {
		t.Errorf("paired estimate %.2f %%, want about −8 %%", e)
	}
	indep := NewStep(StepAdjacent, from, to, stats.Independent, stats.DefaultMinEffect, alpha)
	if indep.Throughput.Call != stats.CallUndecided || indep.Throughput.Pairs != 0 {
		t.Errorf("independent: %+v; want undecided (the drift swamps 8 %%)", indep.Throughput)
	}
	// A window missing on one side drops that round's pair only.
	to.PerWindow[3].Counted = false
	if s := NewStep(StepAdjacent, from, to, stats.Paired, stats.DefaultMinEffect, alpha); s.Throughput.Pairs != len(drift)-1 {
		t.Errorf("pairs with a window missing: %d, want %d", s.Throughput.Pairs, len(drift)-1)
	}
}

// TestProcessSpreadAndRepeats: with two windows per process (protocol
// repeat), the cell reports its within-process spread from the pairs and
// its between-process spread from the processes' geometric means, and a
// step compares one value per process, not per window.
func TestProcessSpreadAndRepeats(t *testing.T) {
	// Processes 1–6 (one a round) at 1000·f, each serving two windows
	// 1 % above and below its own figure.
	f := []float64{1.00, 1.10, 0.90, 1.05, 0.95, 1.20}
	cell := func(stack string, factor float64) Cell {
		c := Cell{Stack: stack, Case: "user", Concurrency: 32}
		for i, x := range f {
			for _, j := range []float64{1.01, 1 / 1.01} {
				c.PerWindow = append(c.PerWindow, WindowFigures{Round: i + 1, Process: i + 1, Counted: true, ThroughputRPS: 1000 * x * factor * j, PerCPUSecond: 100})
			}
		}
		summarizeCell(&c)
		c.State = CellValid
		return c
	}
	a := cell("a", 1)
	if a.WithinProcessCV == nil || math.Abs(*a.WithinProcessCV-1.4826*2*math.Log(1.01)/math.Sqrt2) > 1e-9 {
		t.Errorf("within-process CV %v, want 1.4826 × ln(1.01²) ÷ √2 = %.5f", a.WithinProcessCV, 1.4826*2*math.Log(1.01)/math.Sqrt2)
	}
	r, _ := stats.RobustOf([]float64{1000, 1100, 900, 1050, 950, 1200})
	if a.BetweenProcessCV == nil || math.Abs(*a.BetweenProcessCV-r.CV) > 1e-9 {
		t.Errorf("between-process CV %v, want %v", a.BetweenProcessCV, r.CV)
	}
	paired := NewStep(StepAdjacent, a, cell("b", 1.3), stats.Paired, stats.DefaultMinEffect, stats.DefaultAlpha)
	s := paired
	if s.Throughput.Pairs != len(f) || s.Throughput.Call != stats.CallGain || math.Abs(s.Throughput.EstimatePct-30) > 0.01 {
		t.Errorf("step over processes: %+v; want a +30 %% gain from %d pairs", s.Throughput, len(f))
	}
	ind := NewStep(StepAdjacent, a, cell("b", 1.3), stats.Independent, stats.DefaultMinEffect, stats.DefaultAlpha)
	av, _ := processValues(a, func(w WindowFigures) float64 { return w.ThroughputRPS })
	bv, _ := processValues(cell("b", 1.3), func(w WindowFigures) float64 { return w.ThroughputRPS })
	want, _ := stats.HodgesLehmann(av, bv, stats.DefaultAlpha)
	if len(av) != 6 || ind.Throughput.Pairs != 0 || !ind.Throughput.Bounded() ||
		math.Abs(*ind.Throughput.CILowPct-100*want.Lo) > 1e-9 || math.Abs(*ind.Throughput.CIHighPct-100*want.Hi) > 1e-9 {
		t.Errorf("independent step over 6 processes a side: %+v; want the interval of the 6 process means, %+v", ind.Throughput, want)
	}
	// Paired, each round's pair is the two processes' means, not their first windows.
	if e := paired.Throughput.EstimatePct; math.Abs(e-30) > 1e-6 {
		t.Errorf("paired estimate %v, want exactly +30 %% from the process means", e)
	}
	// One window per process: no within-process spread.
	one := Cell{Stack: "c", Case: "user", Concurrency: 32}
	for i, x := range f {
		one.PerWindow = append(one.PerWindow, WindowFigures{Round: i + 1, Process: i + 1, Counted: true, ThroughputRPS: 1000 * x, PerCPUSecond: 100})
	}
	summarizeCell(&one)
	if one.WithinProcessCV != nil || one.BetweenProcessCV == nil {
		t.Errorf("single windows: within %v, between %v", one.WithinProcessCV, one.BetweenProcessCV)
	}
}

// TestCallsAtTheLastLook: a run that measured past its last look without
// reaching the next calls its steps from the rounds up to that look.
func TestCallsAtTheLastLook(t *testing.T) {
	looks := []int{7, 12}
	for measured, want := range map[int]int{5: 0, 7: 0, 9: 7, 12: 0} {
		if got := callsThrough(looks, measured); got != want {
			t.Errorf("measured %d: calls through %d, want %d", measured, got, want)
		}
	}
	c := Cell{Stack: "a", Counted: 3, PerWindow: []WindowFigures{{Round: 1, Counted: true}, {Round: 2, Counted: true}, {Round: 3, Counted: true}, {Round: 2}}}
	cut := throughRound(c, 2)
	if cut.Counted != 2 || len(cut.PerWindow) != 3 || len(c.PerWindow) != 4 {
		t.Errorf("through round 2: %+v (the cell itself must be unchanged: %d windows)", cut, len(c.PerWindow))
	}
	if all := throughRound(c, 0); all.Counted != 3 {
		t.Errorf("through 0 keeps every window: %+v", all)
	}
	// Valid over all its windows, but at a look after round 2 it had two
	// counted windows: insufficient there, whatever came later.
	v := Cell{Stack: "a", State: CellValid, PerWindow: []WindowFigures{{Round: 1, Counted: true}, {Round: 2, Counted: true}, {Round: 3, Counted: true}, {Round: 4, Counted: true}}}
	if got := throughRound(v, 2); got.State != CellInsufficient {
		t.Errorf("a valid cell seen through round 2 with 2 counted windows: %s, want insufficient", got.State)
	}
	if got := throughRound(v, 3); got.State != CellValid {
		t.Errorf("through round 3 (3 counted windows): %s, want valid", got.State)
	}
}

// TestClockStopMovesTheLastLook: a run the budget's clock stopped after
// round 11 of looks 7 and 13 looks at 7 and 11 — as many looks as planned.
func TestClockStopMovesTheLastLook(t *testing.T) {
	for _, c := range []struct {
		looks    []int
		measured int
		want     []int
	}{
		{[]int{7, 13}, 11, []int{7, 11}},
		{[]int{7, 13}, 13, []int{7, 13}},
		{[]int{7, 14, 16}, 9, []int{7, 9}},
		{[]int{7, 13}, 5, []int{5}},
	} {
		got, lv := clockStopLooks(c.looks, make([]float64, len(c.looks)), c.measured)
		if len(lv) != len(got) {
			t.Errorf("looks %v stopped after %d: %d levels for %d looks", c.looks, c.measured, len(lv), len(got))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("looks %v stopped after %d: %v, want %v", c.looks, c.measured, got, c.want)
		}
		if callsThrough(got, c.measured) != 0 {
			t.Errorf("looks %v stopped after %d: steps not called at the stop", got, c.measured)
		}
	}
}

// TestClockStopKeepsTheLastLooksLevel: the look the clock moves keeps the
// last look's level (most of α), the looks kept keep theirs.
func TestClockStopKeepsTheLastLooksLevel(t *testing.T) {
	looks, levels := clockStopLooks([]int{9, 18, 24}, []float64{0.005, 0.005, 0.04}, 15)
	if !slices.Equal(looks, []int{9, 15}) || !slices.Equal(levels, []float64{0.005, 0.04}) {
		t.Errorf("looks 9, 18, 24 stopped after 15: %v at %v, want [9 15] at [0.005 0.04]", looks, levels)
	}
}

// TestPerCPUSecondIsThroughputOverCores: the sampler's wall time differs
// from the load's window (it follows the generator's events), so
// successes ÷ CPU seconds disagreed with req/s ÷ cores, and with the cost
// model's rps per core, by the ratio of the two walls (4 % in a measured
// window of 2 s whose sampler ran 2.083 s).
func TestPerCPUSecondIsThroughputOverCores(t *testing.T) {
	w := journal.Window{
		Load:        &load.Result{DurationSeconds: 2, Successes: 2281, ThroughputRPS: 1140.5},
		WallSeconds: 2.083447772,
		Server:      journal.Usage{CPUSeconds: 0.45, Cores: 0.45 / 2.083447772},
	}
	f := windowFigures(&w)
	want := w.Load.ThroughputRPS / w.Server.Cores
	if abs(f.PerCPUSecond-want) > 1e-9*want {
		t.Errorf("per CPU-second %g, want req/s ÷ cores = %g (successes ÷ CPU-s would be %g)", f.PerCPUSecond, want, float64(w.Load.Successes)/w.Server.CPUSeconds)
	}
	c := Cell{PerWindow: []WindowFigures{f}}
	c.PerWindow[0].Counted = true
	summarizeCell(&c)
	if got := c.Throughput.Median / c.ServerCores; abs(got-c.PerCPUSecond.Median) > 1e-9*got {
		t.Errorf("cell: req/s %g ÷ cores %g = %g, but req/CPU-s is %g", c.Throughput.Median, c.ServerCores, got, c.PerCPUSecond.Median)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestNoCallBeforeTheFirstLook: an adaptive run makes its calls at its
// looks only; before the first, a step whose windows already look decided
// stays undecided (deciding it would be a look α was not split for).
func TestNoCallBeforeTheFirstLook(t *testing.T) {
	cell := func(stack string, scale float64) Cell {
		c := Cell{Stack: stack, Case: "x", Concurrency: 1, State: CellValid}
		for r := 1; r <= 8; r++ {
			v := scale * (1000 + float64(r%3))
			c.PerWindow = append(c.PerWindow, WindowFigures{Round: r, Process: r, Counted: true, ThroughputRPS: v, PerCPUSecond: v})
		}
		summarizeCell(&c)
		return c
	}
	r := &Result{Header: Header{Stacks: []string{"a", "b"}, Cases: []CaseInfo{{Name: "x"}}, Concurrency: []int{1},
		Design: stats.Paired, Alpha: 0.05, MinEffect: 0.05, Family: "step", Rounds: &RoundsInfo{Looks: []int{13}}}}
	r.Cells = []Cell{cell("a", 1), cell("b", 1.001)}
	r.Recompute()
	if c := r.Steps[0].Throughput.Call; c != stats.CallGain {
		t.Fatalf("after a look: %s, want a (small) gain: b is 0.1 %% ahead in all 8 pairs", c)
	}
	r.Header.BeforeFirstLook = true
	r.Recompute()
	if c := r.Steps[0].Throughput; c.Call != stats.CallUndecided || !strings.Contains(c.Reason, "first, after round 13") {
		t.Errorf("before the first look: %s (%s), want undecided", c.Call, c.Reason)
	}
}

// TestTrendDoesNotMakeACellInsufficient: a window flagged trend is shown
// but does not count against the cell's majority; any other flag does.
func TestTrendDoesNotMakeACellInsufficient(t *testing.T) {
	ws := func(flag journal.Flag) []WindowFigures {
		var out []WindowFigures
		for i := 0; i < 4; i++ {
			w := WindowFigures{Round: i + 1, Counted: true, ThroughputRPS: 100}
			if i < 2 {
				w.Flags = []journal.Flag{flag}
			}
			out = append(out, w)
		}
		return out
	}
	if state, _ := majority(ws(journal.FlagTrend)); state != CellValid {
		t.Errorf("2 of 4 windows flagged trend: %s, want valid", state)
	}
	if state, _ := majority(ws(journal.FlagContended)); state != CellInsufficient {
		t.Errorf("2 of 4 windows flagged contended: %s, want insufficient", state)
	}
}

// TestNotSteadyCountsOnlyWhenTheWindowShowsIt replays the demo's PGO cpu
// cell (2026-12-01): 10 windows of 254–329 req/s, several not_steady
// because a 125 ms slice of a 300 req/s route holds 16–38 completions.
// Their halves agree and none is an outlier, so they are no evidence
// against the cell, which is valid; the same flags on windows whose halves
// disagree, or on outliers, still make it insufficient.
func TestNotSteadyCountsOnlyWhenTheWindowShowsIt(t *testing.T) {
	rps := []float64{301, 254, 329, 288, 297, 312, 270, 305, 283, 318}
	cell := func(extra journal.Flag, outliers bool) []WindowFigures {
		var out []WindowFigures
		for i, v := range rps {
			w := WindowFigures{Round: i + 1, Counted: true, ThroughputRPS: v}
			if i%3 == 0 && i < 9 { // rounds 1, 4 and 7: more than a quarter
				w.Flags = []journal.Flag{journal.FlagNotSteady}
				if extra != "" {
					w.Flags = append(w.Flags, extra)
				}
				if outliers {
					w.ThroughputRPS = 3 * v
				}
			}
			out = append(out, w)
		}
		return out
	}
	if state, reason := majority(cell("", false)); state != CellValid {
		t.Errorf("3 of 10 windows not_steady, halves agreeing, none an outlier: %s (%s), want valid", state, reason)
	}
	if state, _ := majority(cell(journal.FlagTrend, false)); state != CellInsufficient {
		t.Errorf("3 of 10 windows not_steady whose halves disagree: %s, want insufficient", state)
	}
	if state, _ := majority(cell("", true)); state != CellInsufficient {
		t.Errorf("3 of 10 windows not_steady at three times the others' throughput: %s, want insufficient", state)
	}
}

// TestStepOpenReadsTheCellsAtTheLook: a step invalid at the last look
// because a cell had too few counted windows then is still open for the
// adaptive rounds, although the windows measured since make the whole cell
// valid; read whole, the step would have stopped the run as decided.
func TestStepOpenReadsTheCellsAtTheLook(t *testing.T) {
	cell := func(stack string, rounds int) Cell {
		c := Cell{Stack: stack, Case: "user", Concurrency: 32, State: CellValid}
		for r := 1; r <= rounds; r++ {
			c.PerWindow = append(c.PerWindow, WindowFigures{Round: r, Counted: true, ThroughputRPS: 100})
		}
		c.Counted = rounds
		return c
	}
	m := &Result{Cells: []Cell{cell("a", 4), cell("b", 4)}}
	m.Header.CallsThroughRound = 2
	s := Step{From: "a", To: "b", Case: "user", Concurrency: 32, Throughput: Change{Call: stats.CallInvalid}}
	if !m.ThroughputOpen(s) {
		t.Errorf("cells insufficient at the look (2 counted windows each) but valid since: the step must stay open")
	}
	m.Header.CallsThroughRound = 0
	if m.ThroughputOpen(s) {
		t.Errorf("an invalid step whose cells are valid at the look is not open")
	}
	s.Throughput.Call = stats.CallUndecided
	if !m.ThroughputOpen(s) {
		t.Errorf("an undecided step is open")
	}
	m.Cells[1].State = CellFailed
	m.Header.CallsThroughRound = 2
	s.Throughput.Call = stats.CallInvalid
	if m.ThroughputOpen(s) {
		t.Errorf("a failed cell cannot be mended by more windows")
	}
}

// A route group's paired noise is the median of its steps' (the figure
// the demo's database routes are judged by); a step without one (too few
// pairs) is left out.
func TestGroupPairedNoiseIsTheMedianOfItsSteps(t *testing.T) {
	sd := func(v float64) *float64 { return &v }
	var steps []Step
	for i, v := range []*float64{sd(4), sd(10), sd(6), nil} {
		steps = append(steps, Step{Kind: StepAdjacent, From: "a", To: "b", Case: fmt.Sprint("db", i), Concurrency: 32, Database: true,
			Throughput: Change{Call: stats.CallUndecided, PairedSDPct: v}})
	}
	gs := GroupStepsOf(steps, []StackPair{{StepAdjacent, "a", "b"}}, []int{32})
	if len(gs) != 1 || gs[0].Group != GroupDatabase || gs[0].PairedSDPct == nil || *gs[0].PairedSDPct != 6 {
		t.Fatalf("groups %+v; want the database group with a median paired noise of 6 %%", gs)
	}
}
