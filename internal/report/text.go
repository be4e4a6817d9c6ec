package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/suite/dx"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// This file is the terminal's renderer of the model: the lines `stackbench
// run` prints after a finished run, and those of `stackbench dx`,
// `stackbench process` and `stackbench report -o text`. The commands hand
// it a model and write what it writes; none of them formats a field.

// WriteText writes the model for a terminal: of a run, its verdict, what
// each step bought with the interval each call rests on, the latency
// calls, the thresholds, the capacities and the profiles; then the
// developer-experience and process suites when they were measured. A run's
// lines open with a blank line; a suite's follow a blank line when
// something came before them.
func WriteText(w io.Writer, m *Model) error {
	var b strings.Builder
	if m.ofRun() {
		b.WriteString("\n")
		for _, line := range VerdictLines(m) {
			b.WriteString(line + "\n")
		}
		for _, line := range TFBLines(m) {
			b.WriteString(line + "\n")
		}
		textSteps(&b, m)
		if lines := LatencyLines(m); len(lines) > 0 {
			b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
		}
		textThresholds(&b, m)
		textCapacity(&b, m)
		if err := WriteProfilingSection(&b, m); err != nil {
			return err
		}
	}
	if m.DX != nil {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		textDX(&b, m.DX)
	}
	if m.Process != nil {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		textProcess(&b, m.Process)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ofRun is false for the model of a suite measured alone (DXModel,
// ProcessModel): a suite's section and no stack.
func (m *Model) ofRun() bool { return m.DX == nil && m.Process == nil || len(m.Header.Stacks) > 0 }

// DXModel is the model of a DX suite measured on its own (stackbench dx),
// for WriteText.
func DXModel(r dx.Result) *Model {
	return &Model{ModelVersion: ModelVersion, DX: &DXSection{Targets: r.Targets}}
}

// ProcessModel is the model of a process suite measured on its own
// (stackbench process), for WriteText.
func ProcessModel(r spawn.Result) *Model {
	return &Model{ModelVersion: ModelVersion, Process: &ProcessSection{r}}
}

// textSteps writes, per step and route group, how many cases got each
// call and the median estimate, then each case's call with its estimate
// and interval: the terminal never shows a call without what it rests on.
func textSteps(b *strings.Builder, m *Model) {
	if m.Header.ParitySkipped {
		b.WriteString("WARNING: the parity gate was skipped; these stacks were not shown to answer the same contract.\n")
	}
	if len(m.Groups) == 0 {
		return
	}
	family := "each call on its own"
	switch {
	case m.Header.Family == "run" && m.Header.FamilyCalls > 1:
		family = fmt.Sprintf("false calls controlled over the run's %d calls", m.Header.FamilyCalls)
	case m.Header.Family == "run":
		family = fmt.Sprintf("false calls controlled over the run's calls, of which %d valid", m.Header.FamilyCalls)
	}
	headline := m.Header.Headline()
	fmt.Fprintf(b, "\nWhat each step bought (%s; each call from its intervals alone: %.4g%% for a gain or a loss, %.4g%% for same; minimum effect %g%%; %s):\n",
		analysis.MetricLabel(headline), 100*(1-m.Header.Alpha), 100*(1-stats.SameLevel(m.Header.Alpha)), 100*m.Header.MinEffect, family)
	for _, g := range m.Groups {
		label := "  " + g.From + " → " + g.To
		if g.Kind != "adjacent" {
			label = "  (" + g.Kind + ") " + g.From + " → " + g.To
		}
		if g.Defined == 0 {
			fmt.Fprintf(b, "%s, %s routes, c=%d: no valid comparison\n", label, g.Group, g.Concurrency)
			continue
		}
		noise := ""
		if g.PairedSDPct != nil {
			noise = fmt.Sprintf(", median paired noise %.1f%%", *g.PairedSDPct)
		}
		fmt.Fprintf(b, "%s, %s routes, c=%d: %s (median estimate %+.1f%%%s)\n", label, g.Group, g.Concurrency, CallCounts(g.Calls), g.MedianPct, noise)
		for _, s := range m.Steps {
			if s.Kind != g.Kind || s.From != g.From || s.To != g.To || s.Concurrency != g.Concurrency || s.Database != (g.Group == analysis.GroupDatabase) {
				continue
			}
			if c := s.Metric(headline); c != nil {
				fmt.Fprintf(b, "      %-8s %s\n", s.Case, CallText(*c))
			}
		}
	}
}

// textThresholds writes each threshold's verdict with its estimate and
// interval.
func textThresholds(b *strings.Builder, m *Model) {
	if len(m.Thresholds) == 0 {
		return
	}
	fmt.Fprintf(b, "\nThresholds (a latency percentile of all the cell's requests, other limits the median of its processes; each with its %.0f%% family interval):\n", 100*ThresholdConfidence)
	for _, t := range m.Thresholds {
		fmt.Fprintf(b, "  %s\n", ThresholdText(t))
	}
}

// textCapacity writes each case's capacities and the capacity steps'
// calls with what they rest on, after a run with a capacity phase.
func textCapacity(b *strings.Builder, m *Model) {
	cs := m.Capacity
	if cs == nil {
		return
	}
	b.WriteString("\nCapacity at the SLO (open-loop searches; docs/capacity.md):\n")
	for _, c := range cs.Cases {
		unit, slo := "req/s", c.SLO
		if c.PerFlow {
			unit, slo = "flows/s", capacityFlowSLOText(c)
		}
		fmt.Fprintf(b, "  %s, SLO %s:\n", c.Case, slo)
		for _, r := range c.Rows {
			switch {
			case r.Status == capacity.StatusConfirmed && r.AtCapacity != nil:
				fmt.Fprintf(b, "      %-14s %.1f %s%s, p99 %.2f ms at it, %.2f cores (bracket %.1f–%.1f)\n", r.Stack, r.CapacityRPS, unit, searchesWords(r),
					float64(r.AtCapacity.LatencyMicros.P99)/1e3, r.ServerCores, r.LastPassRPS, r.FirstFailRPS)
			default:
				fmt.Fprintf(b, "      %-14s no capacity: %s (bracket %.1f–%.1f %s, 0: none) %s\n", r.Stack, r.Status, r.LastPassRPS, r.FirstFailRPS, unit, r.Error)
			}
		}
	}
	for _, s := range cs.Steps {
		fmt.Fprintf(b, "  %s → %s %s: %s (%d / %d searches)\n", s.From, s.To, s.Case, CallText(s.Capacity), s.Capacity.FromWindows, s.Capacity.ToWindows)
	}
}

// searchesWords says what a capacity rests on, "" for one search: " (median
// of 4 searches, 7,979–8,181)", " (median of 3 of 4 searches, …)".
func searchesWords(r CapacityRow) string {
	if r.Searches <= 1 {
		return ""
	}
	of := fmt.Sprint(r.Confirmed)
	if r.Confirmed < r.Searches {
		of = fmt.Sprintf("%d of %d", r.Confirmed, r.Searches)
	}
	return fmt.Sprintf(" (median of %s searches, %.1f–%.1f)", of, slices.Min(r.SearchCapacitiesRPS), slices.Max(r.SearchCapacitiesRPS))
}

// profilingTop is how many functions and statements the terminal shows
// per step and source.
const profilingTop = 5

// WriteProfilingSection writes the profiling phase for a terminal, its
// heading and each step's top five changes per request (WriteText's part,
// and all that `stackbench explain` prints); nothing without profiles.
func WriteProfilingSection(w io.Writer, m *Model) error {
	if m.Profiling == nil || len(m.Profiling.Steps) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nWhere each step's difference goes (profile windows; per successful request; rows under %d samples hidden):\n", m.Profiling.MinSamples); err != nil {
		return err
	}
	return WriteProfilingText(w, m, profilingTop)
}

// textDX writes the DX suite as a table, the report's columns and cells
// (dxRows), each failure's whole message below it.
func textDX(b *strings.Builder, s *DXSection) {
	b.WriteString("Developer experience: medians (min–max) over the rounds; cold = after emptying the cold: directories.\n")
	writeTextTable(b, dxHead, dxRows(s))
	for _, n := range dxNotes(s)[1:] {
		b.WriteString(n + "\n")
	}
	for _, t := range s.Targets {
		if t.Error != "" {
			fmt.Fprintf(b, "\n%s failed: %s\n", dxName(t), t.Error)
		}
	}
}

// textProcess writes the process suite: how it measured, the report's
// table (processTable), the calls against the first command and each
// failure's whole message.
func textProcess(b *strings.Builder, s *ProcessSection) {
	b.WriteString("Process suite. " + processIntro(s) + "\n\n")
	head, rows := processTable(s)
	writeTextTable(b, head, rows)
	if calls := processCalls(s); len(calls) > 0 {
		b.WriteString("\nAgainst the first command (wall time):\n")
		for _, c := range calls {
			b.WriteString("  " + c + "\n")
		}
	}
	for _, c := range s.Cells {
		if c.Error != "" {
			fmt.Fprintf(b, "\n%s at size %d failed: %s\n", c.Command, c.Size, c.Error)
		}
	}
}

// writeTextTable writes a table in aligned columns, two spaces apart.
func writeTextTable(b *strings.Builder, head []string, rows [][]string) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// capacityFlowSLOText is a flow case's objectives: "p99=500ms on the
// whole flow; login p99=50ms".
func capacityFlowSLOText(c CapacityCase) string {
	t := c.SLO + " on the whole flow"
	for _, st := range c.StepSLOs {
		t += "; " + st.Step + " " + st.SLO
	}
	return t
}
