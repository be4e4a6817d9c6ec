package report

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/cost"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/stats"
)

// BuildOptions are the choices a report leaves to its reader.
type BuildOptions struct {
	// Pricing is the cost model's price table; nil uses the snapshot that
	// ships with stackbench.
	Pricing *cost.Pricing
	// Cost holds the cost model's assumptions; the zero value means
	// cost.DefaultOptions().
	Cost cost.Options
	// Alpha is one minus the steps' confidence; 0 means stats.DefaultAlpha.
	Alpha float64
	// MinEffect overrides the plan's minimum effect when above 0.
	MinEffect float64
	// Design, when set, overrides the design the run's layout implies
	// (LayoutOf): for re-analysing a run under the other design, as
	// bench/precision does. The α stays the run's.
	Design stats.Design
}

// Build reads the journal of a results directory (finished, stopped or
// resumed) and computes its report model with the default options. It runs
// nothing.
func Build(dir string) (*Model, error) { return BuildWith(dir, BuildOptions{}) }

// BuildWith is Build with options.
func BuildWith(dir string, opt BuildOptions) (*Model, error) {
	res, err := journal.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: name a results directory that stackbench run wrote (results/<timestamp>)", dir, journal.FileName)
	}
	if err != nil {
		return nil, fmt.Errorf("read results in %s: %w", dir, err)
	}
	m, err := FromResults(res, opt)
	if err != nil {
		return nil, err
	}
	if err := readSuites(dir, res, m); err != nil {
		return nil, err
	}
	AddProfiling(dir, res, m)
	return m, nil
}

// FromResults computes the report model of a journal already read.
func FromResults(res *journal.Results, opt BuildOptions) (*Model, error) {
	if opt.Alpha == 0 {
		opt.Alpha = stats.DefaultAlpha
	}
	if opt.Cost.LoadsRPS == nil {
		opt.Cost = cost.DefaultOptions()
	}
	if opt.Pricing == nil {
		p, err := cost.DefaultPricing()
		if err != nil {
			return nil, fmt.Errorf("built-in pricing: %w", err)
		}
		opt.Pricing = &p
	}
	a, err := analysis.FromResults(res, analysis.Options{Alpha: opt.Alpha, MinEffect: opt.MinEffect, Design: opt.Design})
	if err != nil {
		return nil, err
	}
	m := &Model{ModelVersion: ModelVersion, Header: a.Header, Cells: a.Cells, LatencyCells: a.LatencyCells, Steps: a.Steps, Groups: a.Groups}
	m.Boot = bootRows(m.Header.Stacks, res.Boot)
	m.Footer = footer(res)
	if err := addCost(m, *opt.Pricing, opt.Cost); err != nil {
		return nil, err
	}
	if err := addCapacity(m, res, opt); err != nil {
		return nil, err
	}
	m.Thresholds = a.Thresholds
	return m, nil
}

// bootRows summarises the boot suite per stack, in step order; a stack
// measured twice (a resumed run) keeps its last record.
func bootRows(stacks []string, boots []journal.Boot) []BootRow {
	last := map[string]journal.Boot{}
	for _, b := range boots {
		last[b.Stack] = b
	}
	var out []BootRow
	for _, s := range stacks {
		b, ok := last[s]
		if !ok {
			continue
		}
		r := BootRow{Stack: s, Starts: len(b.Starts), Failed: b.Error}
		if len(b.Starts) == 0 {
			if r.Failed == "" {
				r.Failed = "no start was measured"
			}
			out = append(out, r)
			continue
		}
		var ready, firstDB, idle []float64
		var firstErrors []string
		for _, st := range b.Starts {
			ready = append(ready, st.ReadySeconds*1e3)
			idle = append(idle, float64(st.IdleRSSBytes))
			switch {
			case st.FirstOK && st.FirstDBRequestSeconds > 0:
				firstDB = append(firstDB, st.FirstDBRequestSeconds*1e3)
			case !st.FirstOK && st.FirstError != "":
				firstErrors = append(firstErrors, st.FirstError)
			}
		}
		r.ColdStartMs, _ = analysis.SpreadOf(ready)
		fdb, _ := analysis.SpreadOf(firstDB)
		ir, _ := analysis.SpreadOf(idle)
		r.FirstDBRequestMs, r.IdleRSSBytes = fdb.Median, int64(ir.Median)
		if len(firstErrors) > 0 {
			r.FirstDBNote = fmt.Sprintf("%d of %d first requests failed (%s)", len(firstErrors), len(b.Starts), firstErrors[0])
		}
		out = append(out, r)
	}
	return out
}
