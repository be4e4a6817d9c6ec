package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
)

// caseTable is one of the tables a case shows beside its cells' own: a
// mix's routes inside its cells or inside its steps, or a flow's figures.
// Note is the Markdown's sentence above it; a table with no rows is not
// shown.
type caseTable struct {
	note string
	head []string
	rows [][]string
}

// writeMD writes the table under its note, or nothing when it has no rows.
func (t caseTable) writeMD(b *strings.Builder) {
	if len(t.rows) == 0 {
		return
	}
	b.WriteString(t.note + "\n\n")
	md := mdTable{head: t.head, rows: t.rows}
	md.write(b)
}

// cellTable builds a case's table from its cells: row gives each cell's
// lines (none for a cell it does not concern).
func cellTable(cells []analysis.Cell, caseName, note string, head []string, row func(analysis.Cell) [][]string) caseTable {
	t := caseTable{note: note, head: head}
	for _, c := range cells {
		if c.Case == caseName {
			t.rows = append(t.rows, row(c)...)
		}
	}
	return t
}

// routesTable is a mix case's routes, per cell: what each route did
// inside the mix (the mix itself is the case's cells and steps).
func routesTable(cells []analysis.Cell, caseName string) caseTable {
	return cellTable(cells, caseName,
		"Routes inside the mix (counted windows summed; latency from each route's merged histograms; share is the route's part of the attempts, beside its weight's):",
		[]string{"stack", "c", "route", "weight", "share", "req/s", "p50", "p99", "failed"},
		func(c analysis.Cell) [][]string {
			var rows [][]string
			for _, r := range c.Routes {
				failed := "0"
				if r.ErrorRate != 0 {
					failed = fmt.Sprintf("%.2f %% (%s)", 100*r.ErrorRate, classCounts(r.Errors))
				}
				rows = append(rows, []string{c.Stack, fmt.Sprint(c.Concurrency), r.Name,
					fmtFraction(r.WeightShare), fmtFraction(r.Share), fmtRate(r.ThroughputRPS),
					fmtMicros(r.Latency.P50), fmtMicros(r.Latency.P99), failed})
			}
			return rows
		})
}

// flowsTable is a flow case's cells: flows per second, a whole flow's
// latency, the failed flows by step and class, and each step.
func flowsTable(cells []analysis.Cell, caseName string) caseTable {
	return cellTable(cells, caseName,
		"Flows (counted windows summed; a flow fails at its first failing step, named with its class, and is never throughput; a flow's time runs from its first send to its last answer, think times included):",
		[]string{"stack", "c", "flows/s", "flow p50", "flow p99", "failed flows", "steps: req/s, p50, p99"},
		func(c analysis.Cell) [][]string {
			f := c.Flow
			if f == nil {
				return nil
			}
			failed := "0"
			if f.Failed > 0 {
				failed = fmt.Sprintf("%d (%s)", f.Failed, classCounts(f.Failures))
			}
			var steps []string
			for _, s := range f.Steps {
				steps = append(steps, fmt.Sprintf("%s %s, %s, %s", s.Name, fmtRate(s.ThroughputRPS), fmtMicros(s.Latency.P50), fmtMicros(s.Latency.P99)))
			}
			return [][]string{{c.Stack, fmt.Sprint(c.Concurrency), fmtRate(f.FlowsPerSecond),
				fmtMicros(f.Latency.P50), fmtMicros(f.Latency.P99), failed, strings.Join(steps, "; ")}}
		})
}

// classCounts lists failure classes with their counts, "class n", sorted
// by class.
func classCounts(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// routeStepsTable is a mix case's routes inside its steps: each route's
// pooled p50 and p99 on both sides with the change and its interval
// (called, or shown only), and each side's failed share. The mix's own
// calls are the step's, in the steps' table.
func routeStepsTable(steps []analysis.Step, caseName string) caseTable {
	t := caseTable{note: routeStepsNote(steps, caseName),
		head: []string{"step", "c", "route", "p50", "p50 change (interval)", "p99", "p99 change (interval)", "failed", "from"}}
	for _, s := range steps {
		if s.Case != caseName {
			continue
		}
		for _, r := range s.Routes {
			t.rows = append(t.rows, []string{stepLabel(s), fmt.Sprint(s.Concurrency), r.Name,
				fmtMicros(r.FromP50Micros) + " → " + fmtMicros(r.ToP50Micros), routeChangeText(r.P50),
				fmtMicros(r.FromP99Micros) + " → " + fmtMicros(r.ToP99Micros), routeChangeText(r.P99),
				fmtFraction(r.FromErrorRate) + " → " + fmtFraction(r.ToErrorRate), routeSourceText(r.Source)})
		}
	}
	return t
}

// routeChangeText is a route's change: its call when it was called, else
// "shown", then the estimate and interval.
func routeChangeText(c analysis.Change) string {
	call := string(c.Call)
	switch c.Call {
	case stats.CallNotCalled:
		call = "shown"
	case stats.CallGain, stats.CallLoss:
		call = callLabel(c)
	}
	return call + ": " + estimateText(c)
}

// routeSourceText names the windows a route's figures come from.
func routeSourceText(source string) string {
	if source == analysis.RouteSourceLatency {
		return "latency windows"
	}
	return "closed loop"
}

// routeStepsNote is the sentence above the table of a mix's routes
// inside its steps.
func routeStepsNote(steps []analysis.Step, caseName string) string {
	called := false
	for _, s := range steps {
		for _, r := range s.Routes {
			called = called || s.Case == caseName && r.Called
		}
	}
	how := "shown with their estimates and intervals at α, outside the run's false-call family (the mix's call_routes: true calls them)"
	if called {
		how = "called in the run's false-call family with the steps' own metrics (call_routes: true)"
	}
	return "Each route's share of the steps: its pooled p50 and p99 over every request of the route in the counted windows (failures at the timeout), lower is better; " + how + ". The mix's own calls are the step's."
}
