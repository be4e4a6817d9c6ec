package report

import "github.com/stackbench/stackbench/internal/analysis"

// result is the model's analysis part, for the lookups analysis defines.
func (m *Model) result() *analysis.Result {
	return &analysis.Result{Header: m.Header, Cells: m.Cells, LatencyCells: m.LatencyCells, Steps: m.Steps, Groups: m.Groups}
}

// CaseCells returns the cells of one case at one concurrency, in step order.
func (m *Model) CaseCells(caseName string, concurrency int) []analysis.Cell {
	return m.result().CaseCells(caseName, concurrency)
}

// Cell returns the cell of (stack, case, concurrency).
func (m *Model) Cell(stack, caseName string, concurrency int) (analysis.Cell, bool) {
	return m.result().Cell(stack, caseName, concurrency)
}

// CaseSteps returns the steps of one case at one concurrency.
func (m *Model) CaseSteps(caseName string, concurrency int) []analysis.Step {
	return m.result().CaseSteps(caseName, concurrency)
}

// GroupSteps returns the group summaries of one route group.
func (m *Model) GroupSteps(group string) []analysis.GroupStep {
	return m.result().GroupSteps(group)
}

// groupCases lists the names of the cases in a route group.
func (m *Model) groupCases(group string) []string {
	return m.result().GroupCases(group)
}

// recompute derives the cells' summaries, the steps and the groups again
// from the cells' per-window figures (for a model read back from JSON).
func (m *Model) recompute() {
	r := m.result()
	r.Recompute()
	m.Header, m.Cells, m.LatencyCells, m.Steps, m.Groups = r.Header, r.Cells, r.LatencyCells, r.Steps, r.Groups
}
