package report

import (
	"fmt"
	"html/template"
	"strings"
)

// processHead are the columns of the process table, before the metrics.
var processHead = []string{"size", "command", "spawn → exit (median)", "min–max"}

// processTable returns the head and lines of the process table: wall
// times, then each metric the programs printed (its median).
func processTable(s *ProcessSection) ([]string, [][]string) {
	metrics := s.MetricNames()
	head := append(append([]string(nil), processHead...), metrics...)
	var rows [][]string
	for _, c := range s.Cells {
		if c.Error != "" {
			row := []string{fmt.Sprint(c.Size), c.Command, "failed: " + firstLine(c.Error), ""}
			for range metrics {
				row = append(row, "")
			}
			rows = append(rows, row)
			continue
		}
		row := []string{fmt.Sprint(c.Size), c.Command, fmtMillis(c.Wall.Median / 1e6), fmtMillis(c.Wall.Min/1e6) + "–" + fmtMillis(c.Wall.Max/1e6)}
		for _, m := range metrics {
			if sp, ok := c.Metrics[m]; ok {
				row = append(row, fmt.Sprintf("%.4g", sp.Median))
			} else {
				row = append(row, "—")
			}
		}
		rows = append(rows, row)
	}
	return head, rows
}

// processCalls are the comparisons with the first command, one line each.
func processCalls(s *ProcessSection) []string {
	var out []string
	for _, c := range s.Calls {
		if !c.Defined {
			out = append(out, fmt.Sprintf("size %d, %s → %s: no comparison (a cell failed)", c.Size, c.From, c.To))
			continue
		}
		out = append(out, fmt.Sprintf("size %d, %s → %s: %+.1f %% wall time, %s (%s)", c.Size, c.From, c.To, 100*c.Change, c.Verdict, c.Detail))
	}
	return out
}

// processIntro says how the suite measured.
func processIntro(s *ProcessSection) string {
	return fmt.Sprintf("Each command spawned and timed to its exit, %d measured runs per command and size after %d warm-up runs, in rotated order. Metrics are the programs' own figures (stackbench-metric lines), medians.", s.Rounds, s.Warmup)
}

// mdProcess writes the process section of summary.md.
func mdProcess(b *strings.Builder, m *Model) {
	if m.Process == nil {
		return
	}
	b.WriteString("## Process cost\n\n" + processIntro(m.Process) + "\n\n")
	head, rows := processTable(m.Process)
	t := mdTable{head: head}
	for _, r := range rows {
		t.add(r...)
	}
	t.write(b)
	for _, c := range processCalls(m.Process) {
		b.WriteString("- " + c + "\n")
	}
	if len(m.Process.Calls) > 0 {
		b.WriteString("\n")
	}
}

// processChart draws the median wall time per size, a bar per command.
func processChart(s *ProcessSection) template.HTML {
	var groups []barGroup
	for _, size := range s.Sizes {
		g := barGroup{Label: fmt.Sprintf("size %d", size)}
		for i, name := range s.Commands {
			b := bar{Color: stackColor(i)}
			for _, c := range s.Cells {
				if c.Command != name || c.Size != size {
					continue
				}
				if c.Error != "" {
					b.Missing, b.Title = "failed", name+": "+firstLine(c.Error)
					break
				}
				b.Value, b.Lo, b.Hi, b.Whisker = c.Wall.Median/1e6, c.Wall.Min/1e6, c.Wall.Max/1e6, c.Wall.N > 1
				b.Label = fmtMillis(b.Value)
				b.Title = fmt.Sprintf("%s at size %d: median %s, %s–%s over %d runs", name, size, fmtMillis(b.Value), fmtMillis(b.Lo), fmtMillis(b.Hi), c.Wall.N)
			}
			g.Bars = append(g.Bars, b)
		}
		groups = append(groups, g)
	}
	return barChart("spawn → exit", groups, func(v float64) string { return tickText(fmtMillis, v) })
}

// suitesView is the DX and process sections laid out for the template.
type suitesView struct {
	DXChart    template.HTML
	DXLegend   []legendItem
	DXHead     []string
	DXRows     [][]string
	DXNotes    []string
	ProcIntro  string
	ProcChart  template.HTML
	ProcLegend []legendItem
	ProcHead   []string
	ProcRows   [][]string
	ProcCalls  []string
}

// newSuitesView formats the sections that were measured.
func newSuitesView(m *Model) suitesView {
	var v suitesView
	if m.DX != nil {
		v.DXChart, v.DXLegend, v.DXHead, v.DXRows, v.DXNotes = dxChart(m.DX), dxLegend(m.DX), dxHead, dxRows(m.DX), dxNotes(m.DX)
	}
	if p := m.Process; p != nil {
		v.ProcIntro, v.ProcChart = processIntro(p), processChart(p)
		for i, name := range p.Commands {
			v.ProcLegend = append(v.ProcLegend, legendItem{Name: name, Color: stackColor(i)})
		}
		v.ProcHead, v.ProcRows = processTable(p)
		v.ProcCalls = processCalls(p)
	}
	return v
}
