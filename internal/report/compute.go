package report

import (
	"fmt"
	"slices"

	"github.com/stackbench/stackbench/internal/cost"
	"github.com/stackbench/stackbench/internal/journal"
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
	c.State = CellValid
	tp := c.CountedValues(func(w WindowFigures) float64 { return w.ThroughputRPS })
	var medianWindow int
	c.Throughput, medianWindow = spreadOf(tp)
	counted := countedWindows(c.PerWindow)
	mw := counted[medianWindow]
	// Every median figure comes from the median window by throughput; the
	// spreads are each metric's own, over all counted windows.
	c.PerCPUSecond, _ = spreadOf(c.CountedValues(func(w WindowFigures) float64 { return w.PerCPUSecond }))
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

// spreadOf summarises values through stats.Summarize and returns the index
// of the median window among them. Values that stats refuses (non-finite)
// give an empty spread.
func spreadOf(values []float64) (Spread, int) {
	s, err := stats.Summarize(values)
	if err != nil {
		return Spread{}, 0
	}
	return Spread{Median: s.Median, Min: s.Min, Max: s.Max, Q1: s.Q1, Q3: s.Q3, Relative: s.Spread}, s.MedianIndex
}

// noiseFloor returns the run's noise floor for one metric of the cells.
// Cells are offered in step order of their stacks, so a tie for "measured
// most" goes to the first stack.
func noiseFloor(m *Model, metric func(Cell) Spread) stats.Floor {
	var cells []stats.CellSpread
	for _, s := range m.Header.Stacks {
		for _, c := range m.Cells {
			if c.Stack != s {
				continue
			}
			sp := metric(c)
			cells = append(cells, stats.CellSpread{
				Stack:         c.Stack,
				Valid:         c.State == CellValid,
				Windows:       c.Counted,
				Spread:        sp.Relative,
				SpreadDefined: c.State == CellValid && sp.Median > 0,
			})
		}
	}
	return stats.NoiseFloor(cells)
}

func floorOf(f stats.Floor) NoiseFloor {
	return NoiseFloor{Known: f.Known, Spread: f.Spread, Stack: f.Stack, Cells: f.Cells}
}

func statsFloor(f NoiseFloor) stats.Floor {
	return stats.Floor{Spread: f.Spread, Stack: f.Stack, Cells: f.Cells, Known: f.Known}
}

// addNoiseFloors sets the run's noise floors: one for throughput, one for
// throughput per CPU-second, each from its own metric's spreads.
func addNoiseFloors(m *Model) {
	m.Header.Noise = floorOf(noiseFloor(m, func(c Cell) Spread { return c.Throughput }))
	m.Header.NoisePerCPU = floorOf(noiseFloor(m, func(c Cell) Spread { return c.PerCPUSecond }))
}

// stackPair is one step between two stacks.
type stackPair struct{ kind, from, to string }

// stepPairs lists each adjacent pair of stacks and, with three or more
// stacks, first → last.
func stepPairs(stacks []string) []stackPair {
	var out []stackPair
	for i := 1; i < len(stacks); i++ {
		out = append(out, stackPair{StepAdjacent, stacks[i-1], stacks[i]})
	}
	if len(stacks) > 2 {
		out = append(out, stackPair{StepOverall, stacks[0], stacks[len(stacks)-1]})
	}
	return out
}

// addSteps computes every step of the run, per case and concurrency.
func addSteps(m *Model) {
	m.Steps = nil
	for _, ci := range m.Header.Cases {
		for _, conc := range m.Header.Concurrency {
			for _, p := range stepPairs(m.Header.Stacks) {
				from := m.cellOrMissing(p.from, ci, conc)
				to := m.cellOrMissing(p.to, ci, conc)
				m.Steps = append(m.Steps, newStep(p.kind, from, to, m.Header.Noise, m.Header.NoisePerCPU, m.Header.Alpha))
			}
		}
	}
}

// cellOrMissing returns the cell, or a missing one when the model has none.
func (m *Model) cellOrMissing(stack string, ci CaseInfo, conc int) Cell {
	if c, ok := m.Cell(stack, ci.Name, conc); ok {
		return c
	}
	return Cell{Stack: stack, Case: ci.Name, Concurrency: conc, Database: ci.Database, State: CellMissing}
}

// newStep compares two cells in throughput and in throughput per CPU-second.
func newStep(kind string, from, to Cell, floor, floorPerCPU NoiseFloor, alpha float64) Step {
	tp := func(w WindowFigures) float64 { return w.ThroughputRPS }
	cpu := func(w WindowFigures) float64 { return w.PerCPUSecond }
	return Step{
		Kind: kind, From: from.Stack, To: to.Stack, Case: from.Case, Concurrency: from.Concurrency, Database: from.Database,
		Throughput: compareMetric(from, to, from.Throughput, to.Throughput, tp, statsFloor(floor), alpha),
		PerCPU:     compareMetric(from, to, from.PerCPUSecond, to.PerCPUSecond, cpu, statsFloor(floorPerCPU), alpha),
		Flagged:    append(countedFlags(from), countedFlags(to)...),
	}
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

// compareMetric runs stats.Compare on one metric of two cells.
func compareMetric(from, to Cell, fs, ts Spread, metric func(WindowFigures) float64, floor stats.Floor, alpha float64) Change {
	st := stats.Compare(
		stats.Side{Valid: from.State == CellValid, Median: fs.Median, Windows: from.CountedValues(metric)},
		stats.Side{Valid: to.State == CellValid, Median: ts.Median, Windows: to.CountedValues(metric)},
		floor, alpha)
	c := Change{Defined: st.ChangeDefined, Band: string(st.Band)}
	if !st.ChangeDefined {
		c.Band = BandInvalid
		c.Verdict = "not tested: a side is not valid"
		if from.State == CellValid && to.State == CellValid {
			c.Verdict = fmt.Sprintf("not tested: %s's median is %g, so there is no relative change", from.Stack, fs.Median)
		}
		return c
	}
	c.Pct = st.Change * 100
	c.Tested, c.P, c.Significant, c.Verdict = st.Test.Possible, st.Test.P, st.Test.Significant, st.Test.Verdict()
	return c
}

// addGroups summarises the throughput steps over database routes and over
// framework-only routes, separately, for each pair of stacks and
// concurrency.
func addGroups(m *Model) {
	m.Groups = groupSteps(m.Steps, stepPairs(m.Header.Stacks), m.Header.Concurrency)
}

// groupSteps summarises steps per pair, concurrency and route group.
func groupSteps(steps []Step, pairs []stackPair, levels []int) []GroupStep {
	var out []GroupStep
	for _, p := range pairs {
		for _, conc := range levels {
			for _, g := range []string{GroupDatabase, GroupFramework} {
				if gs, ok := groupStep(steps, p, conc, g); ok {
					out = append(out, gs)
				}
			}
		}
	}
	return out
}

func groupStep(steps []Step, p stackPair, conc int, group string) (GroupStep, bool) {
	gs := GroupStep{Kind: p.kind, From: p.from, To: p.to, Concurrency: conc, Group: group, Bands: map[string]int{}}
	var pcts []float64
	for _, s := range steps {
		if s.From != p.from || s.To != p.to || s.Kind != p.kind || s.Concurrency != conc || s.Database != (group == GroupDatabase) {
			continue
		}
		gs.Cases++
		gs.Bands[s.Throughput.Band]++
		if len(s.Flagged) > 0 {
			gs.Flagged++
		}
		if s.Throughput.Defined {
			pcts = append(pcts, s.Throughput.Pct)
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
	return gs, true
}

// compute derives everything else from the cells' per-window figures:
// cell summaries, the noise floor, the steps and their group summaries, and,
// when pricing is given, the cost table. Latency must already be set on the
// cells.
func (m *Model) compute(pricing *cost.Pricing, opt cost.Options) error {
	for i := range m.Cells {
		summarizeCell(&m.Cells[i])
	}
	addNoiseFloors(m)
	addSteps(m)
	addGroups(m)
	if pricing == nil {
		return nil
	}
	return addCost(m, *pricing, opt)
}
