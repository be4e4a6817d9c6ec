package report

import "github.com/stackbench/stackbench/internal/analysis"

// The report shows what internal/analysis decided; these names keep the
// renderers and report.json reading the analysis types under their
// report names.
type (
	Header         = analysis.Header
	Host           = analysis.Host
	HostSpeed      = analysis.HostSpeed
	WarmupSummary  = analysis.WarmupSummary
	WarmupRow      = analysis.WarmupRow
	RoundsInfo     = analysis.RoundsInfo
	ExtraRound     = analysis.ExtraRound
	HostSpeedPoint = analysis.HostSpeedPoint
	CaseInfo       = analysis.CaseInfo
	Dispersion     = analysis.Dispersion
	Cell           = analysis.Cell
	Flag           = analysis.Flag
	WindowFigures  = analysis.WindowFigures
	Spread         = analysis.Spread
	Latency        = analysis.Latency
	Step           = analysis.Step
	Change         = analysis.Change
	GroupStep      = analysis.GroupStep
	Placement      = analysis.Placement
	ContainerStack = analysis.ContainerStack
	LatencyInfo    = analysis.LatencyInfo
)

// Cell states, step kinds and route groups, as analysis names them.
const (
	CellValid        = analysis.CellValid
	CellInsufficient = analysis.CellInsufficient
	CellInvalid      = analysis.CellInvalid
	CellFailed       = analysis.CellFailed
	CellMissing      = analysis.CellMissing
	StepAdjacent     = analysis.StepAdjacent
	StepOverall      = analysis.StepOverall
	StepCompare      = analysis.StepCompare
	GroupDatabase    = analysis.GroupDatabase
	GroupFramework   = analysis.GroupFramework
)

// HostSpeedTolerance is analysis.HostSpeedTolerance.
const HostSpeedTolerance = analysis.HostSpeedTolerance

// LayoutOf is analysis.LayoutOf.
var LayoutOf = analysis.LayoutOf

// OrderOf is analysis.OrderOf.
var OrderOf = analysis.OrderOf

// result is the model's analysis part, for the lookups analysis defines.
func (m *Model) result() *analysis.Result {
	return &analysis.Result{Header: m.Header, Cells: m.Cells, LatencyCells: m.LatencyCells, Steps: m.Steps, Groups: m.Groups}
}

// CaseCells returns the cells of one case at one concurrency, in step order.
func (m *Model) CaseCells(caseName string, concurrency int) []Cell {
	return m.result().CaseCells(caseName, concurrency)
}

// Cell returns the cell of (stack, case, concurrency).
func (m *Model) Cell(stack, caseName string, concurrency int) (Cell, bool) {
	return m.result().Cell(stack, caseName, concurrency)
}

// CaseSteps returns the steps of one case at one concurrency.
func (m *Model) CaseSteps(caseName string, concurrency int) []Step {
	return m.result().CaseSteps(caseName, concurrency)
}

// GroupSteps returns the group summaries of one route group.
func (m *Model) GroupSteps(group string) []GroupStep {
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
