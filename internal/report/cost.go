package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"math"
	"slices"

	"github.com/stackbench/stackbench/internal/cost"
)

// costReferenceConcurrency is the concurrency the published cost model read
// its figures at; a run without it uses its highest concurrency.
const costReferenceConcurrency = 100

// addCost runs the cost model on the model's cells and stores its table:
// each stack's database routes (all routes when the workload has none) at
// the reference concurrency, from their median windows.
func addCost(m *Model, pricing cost.Pricing, opt cost.Options) error {
	conc := costConcurrency(m.Header.Concurrency)
	if conc == 0 {
		return nil
	}
	cases := m.groupCases(analysis.GroupDatabase)
	if len(cases) == 0 {
		cases = m.groupCases(analysis.GroupFramework)
	}
	var stacks []cost.StackMeasure
	for _, s := range m.Header.Stacks {
		sm := cost.StackMeasure{Stack: s}
		for _, name := range cases {
			c, _ := m.Cell(s, name, conc)
			sm.Cases = append(sm.Cases, cost.CaseMeasure{
				Case:         name,
				Valid:        c.State == analysis.CellValid,
				RPS:          c.Throughput.Median,
				Cores:        c.ServerCores,
				PeakRSSBytes: float64(c.RSSPeakBytes),
			})
		}
		stacks = append(stacks, sm)
	}
	t, err := cost.Model(stacks, pricing, opt)
	if err != nil {
		return fmt.Errorf("cost model: %w", err)
	}
	m.Cost = costSection(t, conc, cases)
	return nil
}

// costConcurrency picks the reference concurrency among the run's.
func costConcurrency(levels []int) int {
	if slices.Contains(levels, costReferenceConcurrency) {
		return costReferenceConcurrency
	}
	if len(levels) == 0 {
		return 0
	}
	return slices.Max(levels)
}

// costSection copies the cost model's table into the report model.
func costSection(t cost.Table, conc int, cases []string) *CostSection {
	cs := &CostSection{
		PricingDate: t.PricingFetched,
		Currency:    t.Currency,
		Concurrency: conc,
		Cases:       cases,
		Caveats:     t.Caveats,
	}
	for _, s := range t.Sources {
		cs.Sources = append(cs.Sources, s.Provider+": "+s.Note)
	}
	for _, l := range t.Options.LoadsRPS {
		cs.LoadsRPS = append(cs.LoadsRPS, int(math.Round(l)))
	}
	for _, c := range t.Stacks {
		cs.Inputs = append(cs.Inputs, CostInput{Stack: c.Stack, RPSPerCore: c.RPSPerCore, PeakRSSBytes: int64(c.PeakRSSBytes), Problem: c.Problem})
	}
	for _, e := range t.Rows {
		r := CostRow{Stack: e.Stack, Provider: e.Provider, LoadRPS: int(math.Round(e.LoadRPS)), OK: e.OK, Note: e.Note}
		if e.OK {
			r.Plan, r.Machines, r.MonthlyUSD, r.Kind = e.Fit.Plan.Name, e.Fit.Machines, e.Fit.USDPerMonth(), string(e.Fit.Plan.Kind)
		}
		cs.Rows = append(cs.Rows, r)
	}
	return cs
}
