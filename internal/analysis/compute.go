package analysis

import (
	"fmt"
	"math"
	"slices"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// The statistics themselves live in internal/stats; this file only decides
// which windows and cells they are applied to.

// summarizeCell fills a cell's figures from its PerWindow list (whose
// Counted fields must be set) and decides its state, unless the state is
// already failed or missing. Latency is left to the caller: it comes from
// merged histograms, which the model does not keep.
func summarizeCell(c *Cell) {
	c.Windows = len(c.PerWindow)
	c.Counted = 0
	for _, w := range c.PerWindow {
		if w.Counted {
			c.Counted++
		}
	}
	if c.State == CellFailed || c.State == CellMissing {
		return
	}
	if c.Counted == 0 {
		c.State = CellInvalid
		return
	}
	c.State, c.StateReason = majority(c.PerWindow)
	markOutliers(c)
	processSpread(c)
	tp := c.CountedValues(func(w WindowFigures) float64 { return w.ThroughputRPS })
	var medianWindow int
	c.Throughput, medianWindow = SpreadOf(tp)
	counted := countedWindows(c.PerWindow)
	mw := counted[medianWindow]
	// Every median figure comes from the median window by throughput; the
	// spreads are each metric's own, over all counted windows.
	c.PerCPUSecond, _ = SpreadOf(c.CountedValues(func(w WindowFigures) float64 { return w.PerCPUSecond }))
	c.PerCPUSecond.Median = mw.PerCPUSecond
	c.PerCPUSecond.Relative, _ = stats.RelativeSpread(c.PerCPUSecond.Min, c.PerCPUSecond.Max, mw.PerCPUSecond)
	c.CPUMicrosPerRequest = 0
	if mw.PerCPUSecond > 0 {
		c.CPUMicrosPerRequest = 1e6 / mw.PerCPUSecond
	}
	c.ServerCores, c.RSSMeanBytes, c.DBCores, c.GeneratorCores = mw.ServerCores, mw.RSSMeanBytes, mw.DBCores, mw.GeneratorCores
	c.GeneratorWaitCores = mw.GeneratorWaitCores
	c.RSSPeakBytes = 0
	for _, w := range counted {
		c.RSSPeakBytes = max(c.RSSPeakBytes, w.RSSPeakBytes)
	}
}

// markOutliers sets the cell's robust CV of throughput and marks its
// counted windows past the outlier fence (with 3 or more of them).
func markOutliers(c *Cell) {
	c.ThroughputCV, c.Outliers = 0, 0
	tp := c.CountedValues(func(w WindowFigures) float64 { return w.ThroughputRPS })
	if len(tp) < 3 {
		return
	}
	r, err := stats.RobustOf(tp)
	if err != nil {
		return
	}
	c.ThroughputCV = r.CV
	j := 0
	for i := range c.PerWindow {
		if !c.PerWindow[i].Counted {
			continue
		}
		c.PerWindow[i].Outlier = r.Outliers[j]
		if r.Outliers[j] {
			c.Outliers++
		}
		j++
	}
}

// processGroups gathers a cell's counted windows by the process that served
// them (and its round), in journal order, as the log of one metric.
func processGroups(c Cell, metric func(WindowFigures) float64) (logs [][]float64, rounds []int) {
	type key struct{ round, process int }
	at := map[key]int{}
	for _, w := range c.PerWindow {
		v := metric(w)
		if !w.Counted || !(v > 0) {
			continue
		}
		k := key{w.Round, w.Process}
		i, ok := at[k]
		if !ok {
			i = len(logs)
			at[k] = i
			logs, rounds = append(logs, nil), append(rounds, w.Round)
		}
		logs[i] = append(logs[i], math.Log(v))
	}
	return logs, rounds
}

// processValues are one metric per process of the cell: the geometric mean
// of its counted windows (the window itself when it served one), with the
// process's round. Steps compare these, so that two windows of one process
// never count as two independent draws.
func processValues(c Cell, metric func(WindowFigures) float64) (vals []float64, rounds []int) {
	logs, rounds := processGroups(c, metric)
	for _, g := range logs {
		sum := 0.0
		for _, l := range g {
			sum += l
		}
		vals = append(vals, math.Exp(sum/float64(len(g))))
	}
	return vals, rounds
}

// positive reports whether every counted window's metric is above zero.
func positive(c Cell, metric func(WindowFigures) float64) bool {
	for _, w := range c.PerWindow {
		if w.Counted && !(metric(w) > 0) {
			return false
		}
	}
	return true
}

// processSpread sets the cell's within- and between-process spreads of
// throughput (see Cell.WithinProcessCV).
func processSpread(c *Cell) {
	c.WithinProcessCV, c.BetweenProcessCV = nil, nil
	tp := func(w WindowFigures) float64 { return w.ThroughputRPS }
	logs, _ := processGroups(*c, tp)
	var diffs []float64
	for _, g := range logs {
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				diffs = append(diffs, math.Abs(g[i]-g[j]))
			}
		}
	}
	if len(diffs) > 0 {
		med, _ := stats.Quantile(diffs, 0.5)
		w := 1.4826 * med / math.Sqrt2
		c.WithinProcessCV = &w
	}
	if vals, _ := processValues(*c, tp); len(vals) >= 3 {
		if r, err := stats.RobustOf(vals); err == nil {
			b := r.CV
			c.BetweenProcessCV = &b
		}
	}
}

// MinCountedWindows is the fewest counted windows a valid cell has.
const MinCountedWindows = 3

// MaxBadShare is the largest share of a cell's windows that may be invalid
// or flagged for the cell to stay valid: a quarter.
const MaxBadShare = 0.25

// majority decides whether a cell with counted windows is valid: it needs
// at least MinCountedWindows of them, and no more than MaxBadShare of all
// its windows invalid or flagged against it (againstMajority) (trap T17:
// one surviving window does not speak for a stack).
func majority(ws []WindowFigures) (state, reason string) {
	counted, bad := 0, 0
	outlier := fenced(ws)
	for i, w := range ws {
		if w.Counted {
			counted++
		}
		if !w.Counted || againstMajority(w, outlier[i]) {
			bad++
		}
	}
	switch {
	case counted < MinCountedWindows:
		return CellInsufficient, fmt.Sprintf("%d counted windows, fewer than %d", counted, MinCountedWindows)
	case float64(bad) > MaxBadShare*float64(len(ws)):
		return CellInsufficient, fmt.Sprintf("%d of %d windows invalid or flagged, more than a quarter", bad, len(ws))
	}
	return CellValid, ""
}

// fenced marks, per window, the counted ones whose throughput lies past
// the outlier fence of the counted windows given (none with fewer than
// three).
func fenced(ws []WindowFigures) []bool {
	out := make([]bool, len(ws))
	var tp []float64
	var at []int
	for i, w := range ws {
		if w.Counted {
			tp, at = append(tp, w.ThroughputRPS), append(at, i)
		}
	}
	if len(tp) < 3 {
		return out
	}
	r, err := stats.RobustOf(tp)
	if err != nil {
		return out
	}
	for j, i := range at {
		out[i] = r.Outliers[j]
	}
	return out
}

// againstMajority reports whether a counted window's flags count against
// its cell's majority: each flag does but two, which say something about
// the measurement only when the window's figure shows it.
//   - A trend (the window's halves apart by more than the warm-up's
//     tolerance) does not: on a shared 2-core host it is raised by the
//     host's own swings on a quarter to a half of a fast server's windows,
//     and the paired calls cancel a drift shared by a round; it is shown
//     and counted in the report all the same.
//   - not_steady (the warm-up reached its cap before its slices agreed)
//     counts only when the window shows it: its halves disagree (trend) or
//     its throughput is an outlier of its cell. A slow route's slices hold
//     a few dozen completions each, so its warm-ups reach the cap by
//     counting noise alone (the demo's PGO cpu cell: 4 of 10 windows, each
//     within 254–329 req/s like the rest), and a window that is steady
//     within itself and agrees with its cell is no evidence against it.
//
// On a latency window, behind and invalid (its failures) are part of its
// result (latencyResultFlag) and count for nothing against its cell.
func againstMajority(w WindowFigures, outlier bool) bool {
	for _, f := range w.Flags {
		if w.latency && latencyResultFlag(f) {
			// Part of a latency window's result, not a disturbance.
			continue
		}
		switch f {
		case journal.FlagTrend:
		case journal.FlagNotSteady:
			if outlier || slices.Contains(w.Flags, journal.FlagTrend) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// countedWindows returns the counted windows in journal order.
func countedWindows(ws []WindowFigures) []WindowFigures {
	var out []WindowFigures
	for _, w := range ws {
		if w.Counted {
			out = append(out, w)
		}
	}
	return out
}

// SpreadOf summarises values through stats.Summarize and returns the index
// of the median window among them. Values that stats refuses (non-finite)
// give an empty spread.
func SpreadOf(values []float64) (Spread, int) {
	s, err := stats.Summarize(values)
	if err != nil {
		return Spread{}, 0
	}
	return Spread{Median: s.Median, Min: s.Min, Max: s.Max, Q1: s.Q1, Q3: s.Q3, Relative: s.Spread}, s.MedianIndex
}

// addDispersion sets the run's quality figure from the valid cells'
// robust CVs of throughput.
func addDispersion(m *Result) {
	var d Dispersion
	var cvs []float64
	for _, c := range m.Cells {
		if c.State != CellValid || c.Counted < 3 {
			continue
		}
		d.Outliers += c.Outliers
		cvs = append(cvs, c.ThroughputCV)
		if c.ThroughputCV > d.MaxCV || len(cvs) == 1 {
			d.MaxCV, d.MaxStack, d.MaxCase, d.MaxConcurrency = c.ThroughputCV, c.Stack, c.Case, c.Concurrency
		}
	}
	if len(cvs) > 0 {
		d.Known, d.Cells = true, len(cvs)
		d.MedianCV, _ = stats.Quantile(cvs, 0.5)
	}
	var within, between []float64
	for _, c := range m.Cells {
		if c.State != CellValid {
			continue
		}
		if c.WithinProcessCV != nil {
			within = append(within, *c.WithinProcessCV)
		}
		if c.BetweenProcessCV != nil {
			between = append(between, *c.BetweenProcessCV)
		}
	}
	if len(within) > 0 {
		d.MedianWithinCV, _ = stats.Quantile(within, 0.5)
		d.WithinCells = len(within)
	}
	if len(between) > 0 {
		d.MedianBetweenCV, _ = stats.Quantile(between, 0.5)
		d.BetweenCells = len(between)
	}
	m.Header.Dispersion = d
}

// StackPair is one step between two stacks.
type StackPair struct{ Kind, From, To string }

// StepPairs lists each stack's step from the stack it changes one layer of
// (from, by default the previous stack), in the stacks' order, and, with
// three or more stacks, first → last.
func StepPairs(stacks []string, from map[string]string) []StackPair {
	var out []StackPair
	for i := 1; i < len(stacks); i++ {
		f := stacks[i-1]
		if p, ok := from[stacks[i]]; ok && p != "" {
			f = p
		}
		out = append(out, StackPair{StepAdjacent, f, stacks[i]})
	}
	if len(stacks) > 2 {
		out = append(out, StackPair{StepOverall, stacks[0], stacks[len(stacks)-1]})
	}
	return out
}

// RoundOneOnly is the reason of a closed-loop metric under closed_loop:
// first, measured in the rate rounds alone (round 1, or rounds 1 and 2).
const RoundOneOnly = "measured in the rate rounds only (closed_loop: first): too few windows a cell for an interval"

// addSteps computes every step of the run, per case and concurrency, and
// calls them all together under the run's false-call family (FamilyCalls).
// An adaptive run's steps that stopped at an earlier look keep the calls
// they had there (frozenCalls).
func addSteps(m *Result) {
	fz := frozenCalls(m)
	steps, cells, latency := stepsThrough(m, m.Header.CallsThroughRound)
	m.Steps = steps
	markRelaxed(m.Steps, m.Header.TFB)
	routes, at := routePairs(m.Steps, cells, latency, m.Header.Cases)
	vs := callSteps(m.Steps, cells, latency, routes, fz, m.Header.Calls, stats.Family(m.Header.Family), m.Header.Design, m.Header.MinEffect, m.Header.Alpha)
	setRouteChanges(m.Steps, cells, latency, at, vs[len(vs)-len(routes):])
	if m.Header.ClosedLoop == plan.ClosedLoopFirst {
		// One closed-loop window a cell, by design: say so rather than
		// "a side is not valid".
		for i := range m.Steps {
			for _, c := range []*Change{&m.Steps[i].Throughput, &m.Steps[i].PerCPU} {
				if c.Call == stats.CallNotCalled && c.CILowPct == nil {
					c.Reason = RoundOneOnly
				}
			}
		}
	}
	if m.Header.BeforeFirstLook {
		holdUntilTheFirstLook(m.Steps, m.Header.Rounds)
	}
	if m.Header.Family == plan.FamilyRun {
		// The calls the control covered: the steps' metrics that were
		// not invalid (the plan's count, which set the looks, has them all).
		m.Header.FamilyCalls = 0
		for _, s := range m.Steps {
			m.Header.FamilyCalls = max(m.Header.FamilyCalls, s.Throughput.FamilyCalls, s.PerCPU.FamilyCalls)
			for _, c := range append([]*Change{s.P50, s.P99, s.Cost}, s.routeChanges()...) {
				if c != nil {
					m.Header.FamilyCalls = max(m.Header.FamilyCalls, c.FamilyCalls)
				}
			}
		}
	}
}

// stepsThrough lists every step of the run, per case and concurrency, with
// its two cells (and latency cells, when the run has them) as a look after
// round last sees them (throughRound); the calls are left to callSteps.
func stepsThrough(m *Result, last int) (steps []Step, cells, latency [][2]Cell) {
	for _, ci := range m.Header.Cases {
		for _, conc := range m.Header.Concurrency {
			for _, p := range StepPairs(m.Header.Stacks, m.Header.StepFrom) {
				from := throughRound(m.CellOrMissing(p.From, ci, conc), last)
				to := throughRound(m.CellOrMissing(p.To, ci, conc), last)
				steps = append(steps, Step{Kind: p.Kind, From: from.Stack, To: to.Stack, Case: from.Case, Concurrency: from.Concurrency,
					Database: from.Database, Flagged: append(countedFlags(from), countedFlags(to)...)})
				cells = append(cells, [2]Cell{from, to})
				if m.Header.Latency != nil {
					latency = append(latency, [2]Cell{
						throughRound(m.latencyCellOrMissing(p.From, ci, conc), last),
						throughRound(m.latencyCellOrMissing(p.To, ci, conc), last)})
				}
			}
		}
	}
	return steps, cells, latency
}

// holdUntilTheFirstLook leaves every call undecided: an adaptive run
// calls its steps at its looks only, and a call made from the rounds
// before the first would be one more look than α was split over.
func holdUntilTheFirstLook(steps []Step, ri *RoundsInfo) {
	first := 0
	if ri != nil && len(ri.Looks) > 0 {
		first = ri.Looks[0]
	}
	for i := range steps {
		for _, c := range append([]*Change{&steps[i].Throughput, &steps[i].PerCPU, steps[i].P50, steps[i].P99, steps[i].Cost}, steps[i].routeChanges()...) {
			if c == nil {
				continue
			}
			if c.Call == stats.CallInvalid || c.Call == stats.CallUndecided || c.Call == stats.CallNotCalled {
				continue
			}
			if c.Call == stats.CallSame && c.change != nil {
				c.setInterval(*c.change) // an undecided step shows its 1 − α interval
			}
			c.Call, c.Size = stats.CallUndecided, ""
			c.Reason = fmt.Sprintf("the run calls its steps at its looks only, and has not reached its first, after round %d", first)
		}
	}
}

// stepMetrics are the closed-loop windows' metrics of every step, in
// Step's order, by their names in calls: (plan.MetricThroughput …).
var stepMetrics = []struct {
	name  string
	value func(WindowFigures) float64
}{
	{plan.MetricThroughput, func(w WindowFigures) float64 { return w.ThroughputRPS }},
	{plan.MetricPerCPU, func(w WindowFigures) float64 { return w.PerCPUSecond }},
}

// CallSteps sets the throughput and per-CPU calls of steps, whose cells
// are cells[i] (from, to), deciding them all at once under the family.
func CallSteps(steps []Step, cells [][2]Cell, family stats.Family, d stats.Design, minEffect, alpha float64) {
	callSteps(steps, cells, nil, nil, nil, nil, family, d, minEffect, alpha)
}

// callSteps is CallSteps with, when latency is not nil, the p50 and p99
// calls of each step's latency cells (latency[i]) in the same family: a
// rise of the latency is a loss (lowerIsBetter). The calls fz holds
// (frozenCalls, by the order of the family's pairs) stand as they are;
// their p-values still count in the family. A metric not among calls
// (when calls is not empty) is shown, not called (stats.CallNotCalled).
// The routes' pairs (routePairs) are decided after them, in the same
// family unless each is Shown; their verdicts end the list returned.
func callSteps(steps []Step, cells, latency [][2]Cell, routes []stats.SidePair, fz frozen, calls []string, family stats.Family, d stats.Design, minEffect, alpha float64) []stats.Verdict {
	shown := func(metric string) bool { return len(calls) > 0 && !slices.Contains(calls, metric) }
	var pairs []stats.SidePair
	for _, c := range cells {
		for _, metric := range stepMetrics {
			sp := sidesOf(c[0], c[1], metric.value)
			sp.Shown = shown(metric.name)
			pairs = append(pairs, sp)
		}
	}
	for _, c := range latency {
		for _, lm := range latencyMetrics {
			sp := latencySides(c[0], c[1], lm)
			sp.Shown = shown(lm.name)
			pairs = append(pairs, sp)
		}
	}
	pairs = append(pairs, routes...)
	for i := range pairs {
		if f, ok := fz[i]; ok {
			pairs[i].Frozen = &f.verdict
		}
	}
	vs := stats.DecideFamily(family, d, pairs, minEffect, alpha)
	change := func(i int, v stats.Verdict, from, to Cell) Change {
		if f, ok := fz[i]; ok {
			return f.change
		}
		return changeOf(v, from, to)
	}
	for i := range steps {
		from, to := cells[i][0], cells[i][1]
		steps[i].Throughput = change(2*i, vs[2*i], from, to)
		steps[i].PerCPU = change(2*i+1, vs[2*i+1], from, to)
	}
	base, k := len(stepMetrics)*len(cells), len(latencyMetrics)
	for i := range latency {
		from, to := latency[i][0], latency[i][1]
		p50 := change(base+k*i, lowerIsBetter(vs[base+k*i]), from, to)
		p99 := change(base+k*i+1, lowerIsBetter(vs[base+k*i+1]), from, to)
		cost := change(base+k*i+2, lowerIsBetter(vs[base+k*i+2]), costCell(from), costCell(to))
		p50.LowerIsBetter, p99.LowerIsBetter, cost.LowerIsBetter = true, true, true
		steps[i].P50, steps[i].P99, steps[i].Cost = &p50, &p99, &cost
	}
	return vs
}

// throughRound is the cell as a step's call sees it at a look: only its
// windows of rounds up to last (all of them when last is 0), and its state
// decided again from those windows alone, so that windows measured after
// the look cannot make a cell valid at it. A failed or missing cell stays
// so.
func throughRound(c Cell, last int) Cell {
	if last <= 0 {
		return c
	}
	var kept []WindowFigures
	c.Counted = 0
	for _, w := range c.PerWindow {
		if w.Round > last {
			continue
		}
		kept = append(kept, w)
		if w.Counted {
			c.Counted++
		}
	}
	c.PerWindow = kept
	switch {
	case c.State == CellFailed || c.State == CellMissing:
	case c.Counted == 0:
		c.State, c.StateReason = CellInvalid, fmt.Sprintf("no counted window up to round %d", last)
	default:
		c.State, c.StateReason = majority(kept)
	}
	return c
}

// CellOrMissing returns the cell, or a missing one when the model has none.
func (m *Result) CellOrMissing(stack string, ci CaseInfo, conc int) Cell {
	if c, ok := m.Cell(stack, ci.Name, conc); ok {
		return c
	}
	return Cell{Stack: stack, Case: ci.Name, Concurrency: conc, Database: ci.Database, State: CellMissing}
}

// NewStep calls the step from one cell to another in throughput and in
// throughput per CPU-second, each call on its own (FamilyStep).
func NewStep(kind string, from, to Cell, d stats.Design, minEffect, alpha float64) Step {
	s := []Step{{Kind: kind, From: from.Stack, To: to.Stack, Case: from.Case, Concurrency: from.Concurrency, Database: from.Database,
		Flagged: append(countedFlags(from), countedFlags(to)...)}}
	CallSteps(s, [][2]Cell{{from, to}}, stats.FamilyStep, d, minEffect, alpha)
	return s[0]
}

// countedFlags lists the flags of a cell's counted windows as
// "stack: flag ×windows", in the order they first appear.
func countedFlags(c Cell) []string {
	var names []journal.Flag
	n := map[journal.Flag]int{}
	for _, w := range c.PerWindow {
		if !w.Counted {
			continue
		}
		for _, f := range w.Flags {
			if n[f] == 0 {
				names = append(names, f)
			}
			n[f]++
		}
	}
	var out []string
	for _, f := range names {
		out = append(out, fmt.Sprintf("%s: %s ×%d", c.Stack, f, n[f]))
	}
	return out
}

// sidesOf is one metric of two cells as the calls compare them: one value
// per process (processValues), with its round.
func sidesOf(from, to Cell, metric func(WindowFigures) float64) stats.SidePair {
	fv, fr := processValues(from, metric)
	tv, tr := processValues(to, metric)
	if !positive(from, metric) || !positive(to, metric) {
		// processValues leaves out a value that is not positive; let
		// Decide see it and say so (the call is invalid).
		fv, fr = from.CountedValues(metric), from.CountedRounds()
		tv, tr = to.CountedValues(metric), to.CountedRounds()
	}
	return stats.SidePair{
		From: stats.Side{Valid: from.State == CellValid, Windows: fv, Rounds: fr},
		To:   stats.Side{Valid: to.State == CellValid, Windows: tv, Rounds: tr},
	}
}

// changeOf is a verdict as the report shows it.
func changeOf(v stats.Verdict, from, to Cell) Change {
	c := Change{Call: v.Call, Size: v.Size, MinEffectPct: 100 * v.MinEffect, Reason: v.Reason, FromWindows: from.Counted, ToWindows: to.Counted,
		FromValues: v.Shift.N1, ToValues: v.Shift.N2, Pairs: v.Shift.Pairs, FamilyCalls: v.FamilySize, FamilySelected: v.FamilySelected}
	if v.Call == stats.CallInvalid {
		c.Reason = invalidReason(from, to, v.Reason)
		c.FromValues, c.ToValues = 0, 0
		return c
	}
	c.EstimatePct = 100 * v.Shift.Estimate
	c.P = v.Shift.P
	c.setInterval(v.Shift)
	if v.Call == stats.CallSame {
		s := v.ChangeShift()
		c.change = &s
	}
	c.WindowsNeeded = v.WindowsNeeded
	if v.PairedSD > 0 {
		sd := 100 * v.PairedSD
		c.PairedSDPct = &sd
	}
	return c
}

// setInterval sets the change's interval (none when s is unbounded).
func (c *Change) setInterval(s stats.Shift) {
	c.CILowPct, c.CIHighPct, c.Confidence = nil, nil, 0
	if s.Bounded {
		lo, hi := 100*s.Lo, 100*s.Hi
		c.CILowPct, c.CIHighPct, c.Confidence = &lo, &hi, s.Confidence
	}
}

// invalidReason names the side that made a call invalid.
func invalidReason(from, to Cell, fallback string) string {
	for _, c := range []Cell{from, to} {
		if c.State != CellValid {
			r := fmt.Sprintf("%s is %s", c.Stack, c.State)
			if c.StateReason != "" {
				r += " (" + c.StateReason + ")"
			}
			return r
		}
	}
	return fallback
}

// addGroups summarises the steps' calls on the run's headline metric over
// database routes and over framework-only routes, separately, for each
// pair of stacks and concurrency.
func addGroups(m *Result) {
	m.Groups = groupStepsOn(m.Steps, StepPairs(m.Header.Stacks, m.Header.StepFrom), m.Header.Concurrency, m.Header.Headline())
}

// GroupStepsOf summarises steps' throughput per pair, concurrency and
// route group.
func GroupStepsOf(steps []Step, pairs []StackPair, levels []int) []GroupStep {
	return groupStepsOn(steps, pairs, levels, plan.MetricThroughput)
}

func groupStepsOn(steps []Step, pairs []StackPair, levels []int, metric string) []GroupStep {
	var out []GroupStep
	for _, p := range pairs {
		for _, conc := range levels {
			for _, g := range []string{GroupDatabase, GroupFramework} {
				if gs, ok := groupStep(steps, p, conc, g, metric); ok {
					out = append(out, gs)
				}
			}
		}
	}
	return out
}

func groupStep(steps []Step, p StackPair, conc int, group, metric string) (GroupStep, bool) {
	gs := GroupStep{Kind: p.Kind, From: p.From, To: p.To, Concurrency: conc, Group: group, Metric: metric, Calls: map[stats.Call]int{}}
	var pcts, noise []float64
	for i := range steps {
		s := &steps[i]
		if s.From != p.From || s.To != p.To || s.Kind != p.Kind || s.Concurrency != conc || s.Database != (group == GroupDatabase) {
			continue
		}
		c := s.Metric(metric)
		if c == nil {
			c = &Change{Call: stats.CallInvalid}
		}
		if sd := c.PairedSDPct; sd != nil {
			noise = append(noise, *sd)
		}
		gs.Cases++
		gs.Calls[c.Call]++
		if len(s.Flagged) > 0 {
			gs.Flagged++
		}
		if c.Call != stats.CallInvalid && (c.Call != stats.CallNotCalled || c.CILowPct != nil) {
			pcts = append(pcts, c.EstimatePct)
		}
	}
	if gs.Cases == 0 {
		return gs, false
	}
	gs.Defined = len(pcts)
	if len(pcts) > 0 {
		gs.MinPct, gs.MaxPct = slices.Min(pcts), slices.Max(pcts)
		gs.MedianPct, _ = stats.Quantile(pcts, 0.5)
	}
	if len(noise) > 0 {
		med, _ := stats.Quantile(noise, 0.5)
		gs.PairedSDPct = &med
	}
	return gs, true
}

// Recompute derives everything else from the cells' per-window figures:
// cell summaries, the noise floor, the steps and their group summaries.
// Latency must already be set on the cells.
func (r *Result) Recompute() {
	for i := range r.Cells {
		summarizeCell(&r.Cells[i])
	}
	for i := range r.LatencyCells {
		summarizeCell(&r.LatencyCells[i])
	}
	addDispersion(r)
	addSteps(r)
	addCostLoads(r)
	addGroups(r)
}
