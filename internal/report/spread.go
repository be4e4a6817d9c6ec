package report

import (
	"fmt"
	"maps"

	"github.com/stackbench/stackbench/internal/analysis"
)

// OtherStacksError is BetweenRunSpread's refusal: the run at Index (of
// the models given) ran other stacks than the first one did.
type OtherStacksError struct{ Index int }

func (e *OtherStacksError) Error() string {
	return fmt.Sprintf("run %d of those given ran other stacks than the first (their names, builds, starts or revisions differ): a spread is measured on repeated runs of the same stacks", e.Index+1)
}

// BetweenRunSpread measures the run-to-run spread of repeated runs of the
// same stacks (analysis.BetweenRunSpread) from their models; an
// *OtherStacksError when one ran other stacks than the first.
func BetweenRunSpread(ms []*Model) (analysis.SpreadMeasure, error) {
	var runs []*analysis.Result
	for i, m := range ms {
		if i > 0 && !maps.Equal(ms[0].Header.StackFingerprints, m.Header.StackFingerprints) {
			return analysis.SpreadMeasure{}, &OtherStacksError{Index: i}
		}
		runs = append(runs, &analysis.Result{Header: m.Header, Cells: m.Cells, LatencyCells: m.LatencyCells})
	}
	return analysis.BetweenRunSpread(runs)
}

// SpreadLines are a measured spread for a terminal: the machine, the
// throughput's spread and, when measured, the cost's.
func SpreadLines(sm analysis.SpreadMeasure) []string {
	lines := []string{
		fmt.Sprintf("Run-to-run spread on %s (%d cores), from %d runs (standard deviation of a run's figure, log scale, median over the cells):", sm.Host.CPU, sm.Host.Cores, len(sm.Runs)),
		fmt.Sprintf("  throughput: %.2f %% over %d cells", 100*sm.ThroughputSD, sm.ThroughputCells),
	}
	if sm.CostCells > 0 {
		lines = append(lines, fmt.Sprintf("  cost at the fixed rate (per request, or per completed flow): %.2f %% over %d cells", 100*sm.CostSD, sm.CostCells))
	}
	return lines
}

// Host is the machine the run was measured on, for a comparison's choice
// of the run-to-run spread measured there (analysis.Host.SameMachine).
func (m *Model) Host() analysis.Host { return m.Header.Host }

// NoteLines are the notes of the journal's reading for a terminal: each
// line it skipped, and why.
func NoteLines(m *Model) []string {
	var out []string
	for _, n := range m.Header.JournalNotes {
		out = append(out, "note: journal "+n)
	}
	return out
}
