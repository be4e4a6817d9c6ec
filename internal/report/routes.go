package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
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
