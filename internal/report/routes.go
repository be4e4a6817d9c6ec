package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
)

// routeColumns head the table of a mix's routes inside its cells.
var routeColumns = []string{"stack", "c", "route", "weight", "share", "req/s", "p50", "p99", "failed"}

// routeRows are the lines of a mix case's routes, per cell: what each
// route did inside the mix (the mix itself is the case's cells and steps).
func routeRows(cells []analysis.Cell, caseName string) [][]string {
	var rows [][]string
	for _, c := range cells {
		if c.Case != caseName {
			continue
		}
		for _, r := range c.Routes {
			rows = append(rows, []string{c.Stack, fmt.Sprint(c.Concurrency), r.Name,
				fmtFraction(r.WeightShare), fmtFraction(r.Share), fmtRate(r.ThroughputRPS),
				fmtMicros(r.Latency.P50), fmtMicros(r.Latency.P99), failedText(r)})
		}
	}
	return rows
}

// mdRoutes writes a mix case's routes under its cells.
func mdRoutes(b *strings.Builder, cells []analysis.Cell, caseName string) {
	rows := routeRows(cells, caseName)
	if len(rows) == 0 {
		return
	}
	b.WriteString("Routes inside the mix (counted windows summed; latency from each route's merged histograms; share is the route's part of the attempts, beside its weight's):\n\n")
	t := mdTable{head: routeColumns, rows: rows}
	t.write(b)
}

// failedText is a route's failed share and its classes.
func failedText(r analysis.RouteFigures) string {
	if r.ErrorRate == 0 {
		return "0"
	}
	var parts []string
	for _, k := range sortedKeys(r.Errors) {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.Errors[k]))
	}
	return fmt.Sprintf("%.2f %% (%s)", 100*r.ErrorRate, strings.Join(parts, ", "))
}

func sortedKeys(m map[string]int64) []string {
	return slices.Sorted(maps.Keys(m))
}

// flowColumns head the table of a flow's cells.
var flowColumns = []string{"stack", "c", "flows/s", "flow p50", "flow p99", "failed flows", "steps: req/s, p50, p99"}

// flowRows are the lines of a flow case's cells: flows per second, a whole
// flow's latency, the failed flows by step and class, and each step.
func flowRows(cells []analysis.Cell, caseName string) [][]string {
	var rows [][]string
	for _, c := range cells {
		if c.Case != caseName || c.Flow == nil {
			continue
		}
		f := c.Flow
		failed := "0"
		if f.Failed > 0 {
			var parts []string
			for _, k := range sortedKeys(f.Failures) {
				parts = append(parts, fmt.Sprintf("%s %d", k, f.Failures[k]))
			}
			failed = fmt.Sprintf("%d (%s)", f.Failed, strings.Join(parts, ", "))
		}
		var steps []string
		for _, s := range f.Steps {
			steps = append(steps, fmt.Sprintf("%s %s, %s, %s", s.Name, fmtRate(s.ThroughputRPS), fmtMicros(s.Latency.P50), fmtMicros(s.Latency.P99)))
		}
		rows = append(rows, []string{c.Stack, fmt.Sprint(c.Concurrency), fmtRate(f.FlowsPerSecond),
			fmtMicros(f.Latency.P50), fmtMicros(f.Latency.P99), failed, strings.Join(steps, "; ")})
	}
	return rows
}

// mdFlows writes a flow case's flows under its cells.
func mdFlows(b *strings.Builder, cells []analysis.Cell, caseName string) {
	rows := flowRows(cells, caseName)
	if len(rows) == 0 {
		return
	}
	b.WriteString("Flows (counted windows summed; a flow fails at its first failing step, named with its class, and is never throughput; a flow's time runs from its first send to its last answer, think times included):\n\n")
	t := mdTable{head: flowColumns, rows: rows}
	t.write(b)
}

// routeStepColumns head the table of a mix's routes inside its steps.
var routeStepColumns = []string{"step", "c", "route", "p50", "p50 change (interval)", "p99", "p99 change (interval)", "failed", "from"}

// routeStepRows are the lines of a mix case's routes inside its steps:
// each route's pooled p50 and p99 on both sides with the change and its
// interval (called, or shown only), and each side's failed share. The
// mix's own calls are the step's, in the steps' table.
func routeStepRows(steps []analysis.Step, caseName string) [][]string {
	var rows [][]string
	for _, s := range steps {
		if s.Case != caseName {
			continue
		}
		for _, r := range s.Routes {
			rows = append(rows, []string{stepLabel(s), fmt.Sprint(s.Concurrency), r.Name,
				fmtMicros(r.FromP50Micros) + " → " + fmtMicros(r.ToP50Micros), routeChangeText(r.P50),
				fmtMicros(r.FromP99Micros) + " → " + fmtMicros(r.ToP99Micros), routeChangeText(r.P99),
				fmtFraction(r.FromErrorRate) + " → " + fmtFraction(r.ToErrorRate), routeSourceText(r.Source)})
		}
	}
	return rows
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

// mdRouteSteps writes a mix case's routes inside its steps.
func mdRouteSteps(b *strings.Builder, steps []analysis.Step, caseName string) {
	rows := routeStepRows(steps, caseName)
	if len(rows) == 0 {
		return
	}
	b.WriteString(routeStepsNote(steps, caseName) + "\n\n")
	t := mdTable{head: routeStepColumns, rows: rows}
	t.write(b)
}
