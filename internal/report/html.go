package report

import (
	_ "embed"
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"html/template"
	"io"
	"strings"

	"github.com/stackbench/stackbench/internal/stats"
)

//go:embed report.html.tmpl
var htmlSource string

//go:embed suites.html.tmpl
var suitesSource string

//go:embed latency.html.tmpl
var latencySource string

//go:embed capacity.html.tmpl
var capacitySource string

var htmlTemplate = template.Must(template.Must(template.Must(template.Must(template.Must(template.New("report").Parse(htmlSource)).Parse(suitesSource)).Parse(capacitySource)).Parse(profilingSource)).Parse(latencySource))

// WriteHTML renders the model as one self-contained HTML page (report.html):
// inline CSS and SVG, no script from anywhere, nothing fetched.
func WriteHTML(w io.Writer, m *Model) error {
	if err := htmlTemplate.Execute(w, newHTMLView(m)); err != nil {
		return fmt.Errorf("render report.html: %w", err)
	}
	return nil
}

// htmlView is the model laid out for the template: every figure already
// formatted, every chart already drawn.
type htmlView struct {
	M           *Model
	HeaderLines []string
	// Measured are the header's protocol sentences (rounds, layout, the
	// call rule, host speed, warm-up, placement), folded under "How this
	// was measured"; HeaderLines keep the run's own facts.
	Measured []string
	// Forests are the forest plots (forest.go), the page's first picture:
	// the run's headline metric first, then every other metric its steps
	// have, one tab each.
	Forests []forestPanel
	// NotCalled is set when a metric the page shows is not called
	// (protocol calls:), so the key explains its chips.
	NotCalled bool
	// Verdict is the run's verdict in three lines (VerdictLines), the
	// page's first words; Thresholds are the threshold checks as lines.
	Verdict     []string
	Thresholds  []string
	Legend      []legendItem
	ChipRows    []chipRow
	Groups      []groupTable
	Cases       []caseView
	CellColumns []string
	GroupHead   []string
	MinEffect   string
	HostSpeed   template.HTML
	BootChart   template.HTML
	BootRows    []bootRowView
	CostIntro   []string
	CostInputs  [][]string
	CostHead    []string
	CostGrid    [][]string
	CostNotes   []string
	Suites      suitesView
	Capacity    *capacityView
	Profiling   *profilingView
	Latency     *latencyView
}

// bootRowView is a line of the boot table; Failed replaces the figures.
type bootRowView struct {
	Cells  []string
	Failed string
}

type legendItem struct{ Name, Color string }

// chipRow is one case and concurrency with a chip per step.
type chipRow struct {
	Case        string
	Concurrency int
	Database    bool
	Chips       []chip
}

type chip struct {
	Step    string
	Overall bool
	TP, CPU chipMetric
}

// chipMetric is one metric's pill: the call and its estimate, the
// interval beside them, the reason in the title. Every field comes from
// one Change, so a pill cannot show a call its interval does not support.
type chipMetric struct {
	Call                  stats.Call
	Text, Interval, Title string
}

type groupTable struct {
	Title string
	Rows  [][]string
}

// caseView is one case: its charts and its table.
type caseView struct {
	Name     string
	Database bool
	Charts   []caseChart
	Rows     []cellView
	Notes    []string
	// RouteColumns and Routes are a mix's routes inside its cells.
	RouteColumns []string
	Routes       [][]string
	// RouteStepNote, RouteStepColumns and RouteSteps are a mix's routes
	// inside its steps (routeStepsTable).
	RouteStepNote    string
	RouteStepColumns []string
	RouteSteps       [][]string
	// FlowColumns and Flows are a flow's figures inside its cells.
	FlowColumns []string
	Flows       [][]string
}

// caseChart is one metric's chart of a case, shown under its tab.
type caseChart struct {
	Metric string // the tab it belongs to: tp, cpu, lat, rss
	Title  string
	Note   string
	SVG    template.HTML
}

type cellView struct {
	State string
	Cells []string
}

func newHTMLView(m *Model) htmlView {
	v := htmlView{M: m, Verdict: VerdictLines(m), Thresholds: thresholdLines(m), CellColumns: cellColumns, GroupHead: groupHeadFor(m.Header.Headline()), MinEffect: fmtFraction(m.Header.MinEffect), Suites: newSuitesView(m)}
	v.HeaderLines, v.Measured = splitHeader(headerLines(m))
	v.HostSpeed = hostSpeedStrip(m.Header.HostSpeed)
	v.Forests = forestPanels(m)
	v.NotCalled = len(m.Header.Calls) > 0 && len(m.Header.Calls) < len(forestMetrics(m))
	colors := map[string]string{}
	for i, s := range m.Header.Stacks {
		colors[s] = stackColor(i)
		v.Legend = append(v.Legend, legendItem{s, stackColor(i)})
	}
	v.ChipRows = chipRows(m)
	for _, g := range []string{analysis.GroupDatabase, analysis.GroupFramework} {
		if rows := m.GroupSteps(g); len(rows) > 0 {
			gt := groupTable{Title: fmt.Sprintf("%s routes (%s): %s", titleCase(g), strings.Join(m.groupCases(g), ", "), analysis.MetricLabel(m.Header.Headline()))}
			for _, r := range rows {
				gt.Rows = append(gt.Rows, groupRow(r))
			}
			v.Groups = append(v.Groups, gt)
		}
	}
	for _, ci := range m.Header.Cases {
		v.Cases = append(v.Cases, newCaseView(m, ci, colors))
	}
	v.BootChart, v.BootRows = bootView(m, colors)
	v.Capacity = newCapacityView(m, colors)
	v.Profiling = newProfilingView(m)
	v.Latency = newLatencyView(m)
	if c := m.Cost; c != nil {
		v.CostIntro = costIntro(c)
		v.CostInputs, v.CostHead, v.CostGrid = costInputRows(c), costGridHead(c), costGrid(c)
		v.CostNotes = append(costKindNotes(c), c.Caveats...)
	}
	return v
}

// splitHeader keeps the header's first two sentences (the run and its
// stacks) in view and returns the rest, the protocol, to be folded.
func splitHeader(lines []string) (facts, protocol []string) {
	n := min(2, len(lines))
	return lines[:n], lines[n:]
}

func chipRows(m *Model) []chipRow {
	var rows []chipRow
	for _, ci := range m.Header.Cases {
		for _, conc := range m.Header.Concurrency {
			steps := m.CaseSteps(ci.Name, conc)
			if len(steps) == 0 {
				continue
			}
			r := chipRow{Case: ci.Name, Concurrency: conc, Database: ci.Database}
			for _, s := range steps {
				r.Chips = append(r.Chips, chip{Step: stepLabel(s), Overall: s.Kind == analysis.StepOverall,
					TP: newChipMetric(s, s.Throughput, "throughput"), CPU: newChipMetric(s, s.PerCPU, "throughput per CPU-second")})
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func newChipMetric(s analysis.Step, c analysis.Change, metric string) chipMetric {
	cm := chipMetric{Call: c.Call, Text: callLabel(c)}
	if c.Call != stats.CallInvalid {
		cm.Text += " " + fmtPct(c.EstimatePct)
		cm.Interval = intervalText(c)
	}
	cm.Title = fmt.Sprintf("%s, %s c=%d, %s: %s — %s", stepLabel(s), s.Case, s.Concurrency, metric, CallText(c), c.Reason)
	if len(s.Flagged) > 0 {
		cm.Text = "⚠ " + cm.Text
		cm.Title += "; flagged windows counted: " + strings.Join(s.Flagged, "; ")
	}
	if r := relaxedText(s); r != "" {
		cm.Text = RelaxedMark + " · " + cm.Text
		cm.Title += "; " + r
	}
	return cm
}

func newCaseView(m *Model, ci analysis.CaseInfo, colors map[string]string) caseView {
	cv := caseView{Name: ci.Name, Database: ci.Database, Notes: flagNotes(m, ci.Name)}
	var tp, cpu, rss []barGroup
	var lat []latRow
	for _, conc := range m.Header.Concurrency {
		cells := m.CaseCells(ci.Name, conc)
		if len(cells) == 0 {
			continue
		}
		label := fmt.Sprintf("c=%d", conc)
		gtp, gcpu, grss := barGroup{Label: label}, barGroup{Label: label}, barGroup{Label: label}
		for _, c := range cells {
			col := colors[c.Stack]
			gtp.Bars = append(gtp.Bars, spreadBar(c, col, c.Throughput, "req/s"))
			gcpu.Bars = append(gcpu.Bars, spreadBar(c, col, c.PerCPUSecond, "req per CPU-second"))
			grss.Bars = append(grss.Bars, rssBar(c, col))
			lr := latRow{Label: fmt.Sprintf("%s c=%d", c.Stack, c.Concurrency), Color: col, Latency: c.Latency}
			if c.State != analysis.CellValid {
				lr.Missing = c.State
			}
			lat = append(lat, lr)
			cv.Rows = append(cv.Rows, cellView{State: c.State, Cells: cellRow(c)})
		}
		tp, cpu, rss = append(tp, gtp), append(cpu, gcpu), append(rss, grss)
	}
	if t := routesTable(m.Cells, ci.Name); len(t.rows) > 0 {
		cv.RouteColumns, cv.Routes = t.head, t.rows
	}
	if t := routeStepsTable(m.Steps, ci.Name); len(t.rows) > 0 {
		cv.RouteStepNote, cv.RouteStepColumns, cv.RouteSteps = t.note, t.head, t.rows
	}
	if t := flowsTable(m.Cells, ci.Name); len(t.rows) > 0 {
		cv.FlowColumns, cv.Flows = t.head, t.rows
	}
	name := "case " + ci.Name
	cv.Charts = []caseChart{
		{"tp", "Throughput (req/s)", "bar: median window; whisker: min–max of the counted windows", barChart(name+" throughput", tp, rateTick)},
		{"cpu", "Throughput per server CPU-second", "bar: median window; whisker: min–max", barChart(name+" throughput per CPU-second", cpu, rateTick)},
		{"lat", "Latency percentiles (log scale)", "merged histograms of the counted windows", latencyChart(name+" latency", lat)},
		{"rss", "Server memory (RSS)", "bar: mean RSS; whisker: up to the peak", barChart(name+" memory", rss, func(v float64) string { return tickText(fmtMiB, v) })},
	}
	return cv
}

// spreadBar is a cell's bar for one metric: its median, min–max whisker.
func spreadBar(c analysis.Cell, color string, sp analysis.Spread, unit string) bar {
	b := bar{Color: color}
	if c.State != analysis.CellValid {
		b.Missing = c.State
		b.Title = fmt.Sprintf("%s c=%d: %s (%s)", c.Stack, c.Concurrency, c.State, flagText(c))
		return b
	}
	b.Value, b.Lo, b.Hi, b.Whisker = sp.Median, sp.Min, sp.Max, c.Counted > 1
	b.Label = fmtRate(sp.Median)
	b.Flagged = len(c.Flags) > 0
	b.Title = fmt.Sprintf("%s c=%d: %s %s (min %s, max %s, IQR %s–%s, %d windows)", c.Stack, c.Concurrency,
		fmtRate(sp.Median), unit, fmtRate(sp.Min), fmtRate(sp.Max), fmtRate(sp.Q1), fmtRate(sp.Q3), c.Counted)
	if f := flagText(c); f != "" {
		b.Title += "; flags: " + f
	}
	return b
}

func rssBar(c analysis.Cell, color string) bar {
	b := bar{Color: color}
	if c.State != analysis.CellValid {
		b.Missing = c.State
		b.Title = fmt.Sprintf("%s c=%d: %s", c.Stack, c.Concurrency, c.State)
		return b
	}
	b.Value, b.Lo, b.Hi, b.Whisker = mib(c.RSSMeanBytes), mib(c.RSSMeanBytes), mib(c.RSSPeakBytes), true
	b.Label = fmtBytes(c.RSSMeanBytes)
	b.Title = fmt.Sprintf("%s c=%d: mean RSS %s, peak %s", c.Stack, c.Concurrency, fmtBytes(c.RSSMeanBytes), fmtBytes(c.RSSPeakBytes))
	return b
}

// bootView draws the cold-start chart and the boot table's rows.
func bootView(m *Model, colors map[string]string) (template.HTML, []bootRowView) {
	if len(m.Boot) == 0 {
		return "", nil
	}
	g := barGroup{Label: "cold start: spawn → first 200"}
	var rows []bootRowView
	for _, r := range m.Boot {
		b := bar{Color: colors[r.Stack]}
		if r.Failed != "" {
			b.Missing, b.Title = "failed", r.Stack+": "+r.Failed
			rows = append(rows, bootRowView{Cells: []string{r.Stack, fmt.Sprint(r.Starts)}, Failed: r.Failed})
		} else {
			sp := r.ColdStartMs
			b.Value, b.Lo, b.Hi, b.Whisker = sp.Median, sp.Q1, sp.Q3, r.Starts > 1
			b.Label = fmtMillis(sp.Median)
			b.Title = fmt.Sprintf("%s: median %s, IQR %s–%s over %d starts", r.Stack, fmtMillis(sp.Median), fmtMillis(sp.Q1), fmtMillis(sp.Q3), r.Starts)
			rows = append(rows, bootRowView{Cells: bootCells(r)})
		}
		g.Bars = append(g.Bars, b)
	}
	return barChart("cold start", []barGroup{g}, func(v float64) string { return tickText(fmtMillis, v) }), rows
}

// mib converts bytes to MiB, the unit memory charts are drawn in.
func mib(b int64) float64 { return float64(b) / (1 << 20) }

// fmtMiB formats an axis value already in MiB.
func fmtMiB(v float64) string { return fmt.Sprintf("%.1f MiB", v) }

// rateTick formats a rate axis value.
func rateTick(v float64) string { return tickText(fmtRate, v) }
