package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// The latency windows' section (analysis.LatencyInfo): the offered rates,
// each step's p50 and p99 calls at them, and the latency cells. Latency
// is shown in milliseconds; a rise is a loss.

// LatencyIntro says what the latency windows are, in one paragraph.
func LatencyIntro(m *Model) string {
	l := m.Header.Latency
	if l == nil {
		return ""
	}
	rate := l.Rate + " req/s, the same for every stack"
	if strings.HasSuffix(l.Rate, "%") {
		rate = l.Rate + " of the slowest stack's closed-loop median throughput in " + analysis.RoundsUpTo(l.RateRounds) + ", fixed per case and concurrency before any latency window and the same for every stack"
	}
	when := fmt.Sprintf("From round %d, right after each cell's closed-loop window, the same process served an open-loop window at %s. ", l.FirstRound, rate)
	if m.Header.ClosedLoop == plan.ClosedLoopFirst {
		rr := max(l.RateRounds, 1)
		when = fmt.Sprintf("In %s each cell's closed-loop windows fixed the rate; from round %d each was followed by an open-loop window at %s, and from round %d (closed_loop: first) each cell's round was that open-loop window alone, on the round's process, after a fixed warm-up at the rate. ",
			analysis.RoundsUpTo(rr), l.FirstRound, rate, rr+1)
	}
	s := when + "Latency is measured from each request's intended send time (corrected for coordinated omission); steps call p50 and p99, and the fixed-rate cost (CPU-µs per request at that rate of the server, its own database backends and its services), paired by round, in the run's false-call family, and a rise is a loss."
	if anyFlowRate(m) {
		s += " A flow case is offered flows, not requests: its rate is in flows per second (of the slowest stack's closed-loop completed flows per second), its latency is the whole flow's from its scheduled start, and its cost is CPU-µs per completed flow (a failed flow is never throughput); each step's own latency is in the flow table."
	}
	if l.Behind > 0 {
		s += fmt.Sprintf(" %d of %d latency windows were flagged %s (the server did not keep up with the offered rate); they are counted, at their measured tail, with their unsent and unfinished requests at the time they had waited.", l.Behind, l.Windows, journal.FlagBehind)
	}
	return s
}

// latencyRateHead and latencyRateRows are the offered rates.
var latencyRateHead = []string{"case", "c", "offered rate", "set by"}

func latencyRateRows(m *Model) [][]string {
	var rows [][]string
	for _, r := range m.Header.Latency.Rates {
		by := "absolute"
		switch {
		case r.RateRPS <= 0:
			by = "no rate: " + r.Reason
		case r.Slowest != "":
			by = fmt.Sprintf("%s of %s's closed-loop median, %s req/s", m.Header.Latency.Rate, r.Slowest, fmtRate(r.SlowestRPS))
		}
		if r.Slowest != "" && r.PerFlow {
			by = fmt.Sprintf("%s of %s's closed-loop median, %s flows/s", m.Header.Latency.Rate, r.Slowest, fmtRate(r.SlowestRPS))
		}
		rows = append(rows, []string{r.Case, fmt.Sprint(r.Concurrency), fmtRate(r.RateRPS) + " " + rateUnit(r.PerFlow), by})
	}
	return rows
}

// latencyStepHead and latencyStepRows are each step's latency calls, and
// its cost at the fixed rate beside its cost near saturation, each stack's
// absolute CPU-µs per request with the load it was measured at.
var latencyStepHead = []string{"case", "c", "step", "p50", "estimate (interval)", "p99", "estimate (interval)", "cost per request at the rate", "estimate (interval)", "CPU-µs per request at the rate", "near saturation (shown, not called)"}

// latencyStepHeadOf is latencyStepHead, its cost columns saying "per
// request or flow" when a case is a flow.
func latencyStepHeadOf(m *Model) []string {
	if !anyFlowRate(m) {
		return latencyStepHead
	}
	h := slices.Clone(latencyStepHead)
	h[7], h[9] = "cost per request or flow at the rate", "CPU-µs per request or flow at the rate"
	return h
}

func latencyStepRows(m *Model, call func(analysis.Change) string) [][]string {
	var rows [][]string
	for _, s := range m.Steps {
		if s.P50 == nil || s.P99 == nil {
			continue
		}
		cost, costEst := "–", "–"
		if s.Cost != nil {
			cost, costEst = call(*s.Cost), estimateText(*s.Cost)
		}
		fixed, sat := costLoadsText(s.CostLoads)
		if isFlowCase(m, s.Case) {
			cost, fixed = perFlow(cost), perFlow(fixed)
		}
		rows = append(rows, []string{s.Case, fmt.Sprint(s.Concurrency), stepLabel(s), call(*s.P50), estimateText(*s.P50), call(*s.P99), estimateText(*s.P99), cost, costEst, fixed, sat})
	}
	return rows
}

// costLoadsText is a step's absolute cost at its fixed rate ("812 → 1,046
// at 6,250 req/s") and near saturation ("420 → 668 (+59.0 %) at 15,600 →
// 9,800 req/s; depends on load"); "–" where not measured.
func costLoadsText(cl *analysis.CostLoads) (fixed, sat string) {
	fixed, sat = "–", "–"
	if cl == nil {
		return
	}
	unit := rateUnit(cl.PerFlow)
	if cl.FromFixedMicros > 0 && cl.ToFixedMicros > 0 {
		fixed = fmt.Sprintf("%s → %s at %s %s", fmtMicrosPlain(cl.FromFixedMicros), fmtMicrosPlain(cl.ToFixedMicros), fmtRate(cl.RateRPS), unit)
	}
	if cl.FromSatMicros > 0 && cl.ToSatMicros > 0 {
		sat = fmt.Sprintf("%s → %s (%+.1f %%) at %s → %s %s", fmtMicrosPlain(cl.FromSatMicros), fmtMicrosPlain(cl.ToSatMicros), cl.SatChangePct, fmtRate(cl.FromSatRPS), fmtRate(cl.ToSatRPS), unit)
		if cl.SatWindows == 1 {
			sat += ", one window a stack"
		}
		if cl.DependsOnLoad {
			sat += "; depends on load"
		}
	}
	return fixed, sat
}

// fmtMicrosPlain is a CPU-µs figure to three significant digits.
func fmtMicrosPlain(us float64) string {
	switch {
	case us >= 100:
		return fmt.Sprintf("%.0f", us)
	case us >= 10:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.2f", us)
}

// latencyCellHead and latencyCellRows are the latency cells.
var latencyCellHead = []string{"case", "c", "stack", "state", "windows (counted)", "served req/s", "p50", "p99", "behind"}

// latencyCellHeadOf is latencyCellHead, its rate column without a unit
// (each cell says req/s or flows/s) when a case is a flow.
func latencyCellHeadOf(m *Model) []string {
	if !anyFlowRate(m) {
		return latencyCellHead
	}
	h := slices.Clone(latencyCellHead)
	h[5] = "served"
	return h
}

func latencyCellRows(m *Model) [][]string {
	var rows [][]string
	for _, c := range m.LatencyCells {
		state := c.State
		if c.StateReason != "" {
			state += ": " + c.StateReason
		}
		behind := 0
		for _, f := range c.Flags {
			if f.Name == journal.FlagBehind {
				behind = f.Windows
			}
		}
		p50, p99, served := "–", "–", "–"
		if c.Counted > 0 {
			p50, p99, served = fmtMicros(c.Latency.P50), fmtMicros(c.Latency.P99), fmtRate(c.Throughput.Median)
			if anyFlowRate(m) {
				served += " req/s"
			}
			if c.Flow != nil {
				// A flow's latency cell: completed flows, whole-flow latency.
				served = fmtRate(c.Flow.FlowsPerSecond) + " flows/s"
				p50, p99 = "flow "+p50, "flow "+p99
			}
		}
		rows = append(rows, []string{c.Case, fmt.Sprint(c.Concurrency), c.Stack, state, fmt.Sprintf("%d (%d)", c.Windows, c.Counted), served, p50, p99, fmt.Sprint(behind)})
	}
	return rows
}

// LatencyLines are the latency calls for a terminal: the rates, then each
// step's p50 and p99 with what they rest on; nil without latency windows.
func LatencyLines(m *Model) []string {
	if m.Header.Latency == nil {
		return nil
	}
	lines := []string{"Latency and cost at a fixed rate (open loop, latency corrected for coordinated omission, cost = CPU-µs per request of the server, its own database backends and its services, at the rate; a rise is a loss):"}
	if anyFlowRate(m) {
		lines[0] = strings.TrimSuffix(lines[0], "):") + "; a flow case: flows/s offered, whole-flow latency from its scheduled start, CPU-µs per completed flow):"
	}
	for _, r := range latencyRateRows(m) {
		lines = append(lines, fmt.Sprintf("  %s c=%s: %s (%s)", r[0], r[1], r[2], r[3]))
	}
	for _, s := range m.Steps {
		if s.P50 == nil || s.P99 == nil {
			continue
		}
		line := fmt.Sprintf("  %s %s c=%d: p50 %s; p99 %s", stepLabel(s), s.Case, s.Concurrency, CallText(*s.P50), CallText(*s.P99))
		per := "request"
		if isFlowCase(m, s.Case) {
			per = "completed flow"
		}
		if s.Cost != nil {
			line += "; cost per " + per + " " + CallText(*s.Cost)
		}
		if fixed, sat := costLoadsText(s.CostLoads); fixed != "–" {
			line += "; CPU-µs per " + per + " " + fixed
			if sat != "–" {
				line += ", near saturation " + sat
			}
		}
		lines = append(lines, line)
	}
	if b := m.Header.Latency.Behind; b > 0 {
		lines = append(lines, fmt.Sprintf("  %d of %d latency windows fell behind their rate; they are counted, at their measured tail", b, m.Header.Latency.Windows))
	}
	return lines
}

// mdLatency writes the latency section.
func mdLatency(b *strings.Builder, m *Model) {
	if m.Header.Latency == nil {
		return
	}
	b.WriteString("## Latency at a fixed rate\n\n")
	b.WriteString(LatencyIntro(m) + "\n\n")
	for _, part := range []struct {
		head []string
		rows [][]string
	}{
		{latencyRateHead, latencyRateRows(m)},
		{latencyStepHeadOf(m), latencyStepRows(m, callCell)},
		{latencyCellHeadOf(m), latencyCellRows(m)},
	} {
		if len(part.rows) == 0 {
			continue
		}
		t := mdTable{head: part.head}
		for _, r := range part.rows {
			t.add(r...)
		}
		t.write(b)
	}
	for _, t := range latencyFlowTables(m) {
		t.writeMD(b)
	}
}

// latencyFlowTables are each flow case's latency cells as flows: flows
// per second at the rate, the whole flow's latency, the failed flows and
// each step's own figures.
func latencyFlowTables(m *Model) []caseTable {
	var out []caseTable
	for _, ci := range m.Header.Cases {
		t := flowsTable(m.LatencyCells, ci.Name)
		if len(t.rows) == 0 {
			continue
		}
		t.note = "Flows of " + ci.Name + " at the fixed rate (counted latency windows summed; a flow's time runs from its scheduled start to its last answer, think times included; a failed flow is never throughput):"
		out = append(out, t)
	}
	return out
}

// latencyView is the latency section of the HTML page.
type latencyView struct {
	Intro  string
	Tables []latencyTable
}

type latencyTable struct {
	Title string
	Head  []string
	Rows  [][]string
}

func newLatencyView(m *Model) *latencyView {
	if m.Header.Latency == nil {
		return nil
	}
	v := &latencyView{Intro: LatencyIntro(m)}
	plain := func(c analysis.Change) string { return callLabel(c) }
	tables := []latencyTable{
		{"Offered rates", latencyRateHead, latencyRateRows(m)},
		{"Steps: p50, p99 and cost per request", latencyStepHeadOf(m), latencyStepRows(m, plain)},
		{"Latency cells", latencyCellHeadOf(m), latencyCellRows(m)},
	}
	for _, ft := range latencyFlowTables(m) {
		tables = append(tables, latencyTable{strings.TrimSuffix(strings.SplitN(ft.note, " (", 2)[0], ":"), ft.head, ft.rows})
	}
	for _, t := range tables {
		if len(t.Rows) > 0 {
			v.Tables = append(v.Tables, t)
		}
	}
	return v
}

// rateUnit is the unit of an offered or served rate: flows per second for
// a flow case, else requests per second.
func rateUnit(perFlow bool) string {
	if perFlow {
		return "flows/s"
	}
	return "req/s"
}

// anyFlowRate reports whether some latency rate is a flow case's.
func anyFlowRate(m *Model) bool {
	for _, r := range m.Header.Latency.Rates {
		if r.PerFlow {
			return true
		}
	}
	return false
}

// isFlowCase reports whether the run measured name as a flow (its cells
// carry flow figures).
func isFlowCase(m *Model, name string) bool {
	for _, cs := range [][]analysis.Cell{m.LatencyCells, m.Cells} {
		for _, c := range cs {
			if c.Case == name && c.Flow != nil {
				return true
			}
		}
	}
	return false
}

// perFlow marks a cost cell of a flow case as per completed flow.
func perFlow(s string) string {
	if s == "–" {
		return s
	}
	return s + " per flow"
}
