package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// The between-run spread, measured (issue 43, item 5). One run a side
// cannot see what moves a whole run — a rebuild, the memory layout, the
// database's state, the hour — so a comparison of one run with one adds a
// run-to-run spread to each side's interval. BetweenRunSpread measures it
// from repeated runs of one file on one machine (A/A): for each stack ×
// case × concurrency, each run's figure (the geometric mean of its
// per-process values), the standard deviation of their logs across the
// runs; the machine's spread for a metric is the median of those over the
// cells.

// MinSpreadRuns is the fewest runs a measured spread is taken from.
const MinSpreadRuns = 3

// SpreadMeasure is a machine's measured between-run spread.
type SpreadMeasure struct {
	// Runs are the run IDs it came from.
	Runs []string `json:"runs"`
	// Host is the machine they ran on (every run's must agree).
	Host Host `json:"host"`
	// ThroughputSD and CostSD are the spreads (standard deviation of the
	// log of a run's figure) of closed-loop throughput and of the
	// fixed-rate cost; CostSD is 0 when the runs have no cost windows.
	ThroughputSD float64 `json:"throughput_sd"`
	CostSD       float64 `json:"cost_sd,omitempty"`
	// Cells is how many stack × case × concurrency cells each median is
	// over.
	ThroughputCells int `json:"throughput_cells"`
	CostCells       int `json:"cost_cells,omitempty"`
}

// BetweenRunSpread measures the between-run spread of runs of one file
// on one machine. It needs MinSpreadRuns runs or more, all on the same
// host (CPU, cores, OS and architecture).
func BetweenRunSpread(runs []*Result) (SpreadMeasure, error) {
	var sm SpreadMeasure
	if len(runs) < MinSpreadRuns {
		return sm, fmt.Errorf("%d runs: a between-run spread needs %d or more runs of the same file on this machine", len(runs), MinSpreadRuns)
	}
	sm.Host = runs[0].Header.Host
	for _, r := range runs {
		h := r.Header.Host
		if !h.SameMachine(sm.Host) {
			return sm, fmt.Errorf("run %s ran on %s (%d cores), run %s on %s (%d cores): a spread is one machine's; give runs of one machine",
				runs[0].Header.RunID, sm.Host.CPU, sm.Host.Cores, r.Header.RunID, h.CPU, h.Cores)
		}
		sm.Runs = append(sm.Runs, r.Header.RunID)
	}
	first := runs[0]
	tp := func(w WindowFigures) float64 { return w.ThroughputRPS }
	var tpSDs, costSDs []float64
	for _, ci := range first.Header.Cases {
		for _, conc := range first.Header.Concurrency {
			for _, s := range first.Header.Stacks {
				if sd, ok := runSD(runs, func(r *Result) Cell { return r.CellOrMissing(s, ci, conc) }, tp); ok {
					tpSDs = append(tpSDs, sd)
				}
				if hasCost(runs) {
					if sd, ok := runSD(runs, func(r *Result) Cell { return costCellOf(r, s, ci, conc) }, costMetric); ok {
						costSDs = append(costSDs, sd)
					}
				}
			}
		}
	}
	if len(tpSDs) == 0 && len(costSDs) == 0 {
		return sm, errors.New("no stack × case has a valid cell in every run: nothing to measure a spread from")
	}
	sm.ThroughputSD, sm.ThroughputCells = medianOrZero(tpSDs), len(tpSDs)
	sm.CostSD, sm.CostCells = medianOrZero(costSDs), len(costSDs)
	return sm, nil
}

// runSD is the standard deviation of the log of each run's figure of a
// cell (the geometric mean of its per-process values), over runs in which
// the cell is valid with more than one process: the figure of a run
// with fewer is noise of another kind. ok is false with fewer than
// MinSpreadRuns such runs.
func runSD(runs []*Result, cellOf func(*Result) Cell, metric func(WindowFigures) float64) (float64, bool) {
	var logs []float64
	for _, r := range runs {
		c := cellOf(r)
		if c.State != CellValid || !positive(c, metric) {
			continue
		}
		vals, _ := processValues(c, metric)
		if len(vals) < 2 {
			continue
		}
		logs = append(logs, math.Log(geoMean(vals)))
	}
	if len(logs) < MinSpreadRuns {
		return 0, false
	}
	mean := 0.0
	for _, l := range logs {
		mean += l
	}
	mean /= float64(len(logs))
	ss := 0.0
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	return math.Sqrt(ss / float64(len(logs)-1)), true
}

func medianOrZero(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// SameMachine reports whether two hosts are one machine as a spread sees
// it: the same CPU model and count, operating system and architecture.
func (h Host) SameMachine(o Host) bool {
	return h.CPU == o.CPU && h.Cores == o.Cores && h.OS == o.OS && h.Arch == o.Arch
}
