package report

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// The forest plot is the report's first picture: every step on every case
// and concurrency as its estimate and interval, on a log scale of the
// ratio to the step's first stack, against the ±min_effect band, coloured
// by call — the way a reader of a trial or of benchstat expects a list of
// effects. A log scale makes a step and its reverse mirror images, as the
// calls do (docs/statistics.md).

// forestRow is one row of the plot: a step's change on one case.
type forestRow struct {
	Step   analysis.Step
	Change analysis.Change
}

// forestGroup is the rows of one step (From → To), in case order.
type forestGroup struct {
	Label string
	Rows  []forestRow
}

// forestGroups gathers the steps by From → To, adjacent steps in step
// order and the first → last step after them, each group's rows in the
// model's case and concurrency order. pick chooses the metric.
func forestGroups(m *Model, pick func(analysis.Step) analysis.Change) []forestGroup {
	var groups []forestGroup
	index := map[string]int{}
	add := func(s analysis.Step) {
		key := s.Kind + "\x00" + s.From + "\x00" + s.To
		i, ok := index[key]
		if !ok {
			label := stepLabel(s)
			if s.Kind == analysis.StepOverall {
				label += " (first → last)"
			}
			i = len(groups)
			index[key] = i
			groups = append(groups, forestGroup{Label: label})
		}
		groups[i].Rows = append(groups[i].Rows, forestRow{Step: s, Change: pick(s)})
	}
	for _, overall := range []bool{false, true} {
		for _, ci := range m.Header.Cases {
			for _, conc := range m.Header.Concurrency {
				for _, s := range m.CaseSteps(ci.Name, conc) {
					if (s.Kind == analysis.StepOverall) == overall {
						add(s)
					}
				}
			}
		}
	}
	return groups
}

// forestPanel is one tab of the forest plot: one metric's changes.
type forestPanel struct {
	Label string
	SVG   template.HTML
}

// forestMetrics are the metrics the forest plot has a tab for, the run's
// headline first, then the others its steps have (throughput, per
// CPU-second, and with latency windows the fixed-rate cost, p50 and p99).
func forestMetrics(m *Model) []string {
	out := []string{m.Header.Headline()}
	for _, name := range []string{plan.MetricThroughput, plan.MetricPerCPU, plan.MetricCost, plan.MetricP50, plan.MetricP99} {
		if slices.Contains(out, name) || len(m.Steps) == 0 || m.Steps[0].Metric(name) == nil {
			continue
		}
		out = append(out, name)
	}
	return out
}

// forestPanels draws the forest plot of each of forestMetrics.
func forestPanels(m *Model) []forestPanel {
	var out []forestPanel
	for _, name := range forestMetrics(m) {
		label := analysis.MetricLabel(name)
		groups := forestGroups(m, func(s analysis.Step) analysis.Change {
			if c := s.Metric(name); c != nil {
				return *c
			}
			return analysis.Change{Call: stats.CallInvalid}
		})
		out = append(out, forestPanel{Label: strings.ToUpper(label[:1]) + label[1:],
			SVG: forestPlot("forest plot: each step's change in "+label+", by case", groups, m.Header.MinEffect)})
	}
	return out
}

// callColor is the colour of a call in the forest plot; the chips and the
// key use the same hues.
func callColor(c stats.Call) string {
	switch c {
	case stats.CallGain:
		return "#1a7f37"
	case stats.CallLoss:
		return "#c0392b"
	case stats.CallSame:
		return "#6e7781"
	case stats.CallUndecided:
		return "#b7791f"
	case stats.CallNotCalled:
		return "#a8b1ba"
	}
	return "#8a1f11"
}

// ratioOf turns a percentage change into the ratio the axis is drawn in.
func ratioOf(pct float64) float64 { return 1 + pct/100 }

// forestTicks are the ratios the axis may mark, as the changes a reader
// knows: −90 % … +900 %.
var forestTicks = []float64{0.1, 0.2, 0.5, 0.75, 0.9, 0.95, 1, 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10}

// forestRange is the axis's span in log10 of the ratio: every finite
// estimate and interval bound and the band, padded, within 0.1…10.
func forestRange(groups []forestGroup, minEffect float64) (lo, hi float64) {
	band := math.Log10(1 + minEffect)
	lo, hi = -band, band
	widen := func(pct float64) {
		if r := ratioOf(pct); r > 0 {
			v := math.Log10(r)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, g := range groups {
		for _, r := range g.Rows {
			c := r.Change
			if c.Call == stats.CallInvalid {
				continue
			}
			widen(c.EstimatePct)
			if c.Bounded() {
				widen(*c.CILowPct)
				widen(*c.CIHighPct)
			}
		}
	}
	pad := (hi - lo) * 0.06
	return math.Max(lo-pad, -1), math.Min(hi+pad, 1)
}

// Forest plot geometry, in viewBox units.
const (
	forestLabelW = 190 // the case labels
	forestPlotW  = 440 // the axis
	forestTextW  = 400 // each row's call in words
	forestRowH   = 20
	forestHeadH  = 22 // a step's heading row
	forestTop    = 34 // the axis labels above the rows
	forestBottom = 14
)

// forestPlot draws the groups as one SVG. minEffect is the run's minimum
// effect as a fraction; label names the picture for screen readers.
func forestPlot(label string, groups []forestGroup, minEffect float64) template.HTML {
	if len(groups) == 0 {
		return ""
	}
	lo, hi := forestRange(groups, minEffect)
	x0 := float64(forestLabelW)
	x := func(ratio float64) float64 {
		v := math.Log10(ratio)
		v = math.Max(lo, math.Min(hi, v))
		return x0 + (v-lo)/(hi-lo)*forestPlotW
	}
	height := forestTop + forestBottom
	for _, g := range groups {
		height += forestHeadH + len(g.Rows)*forestRowH
	}
	width := forestLabelW + forestPlotW + forestTextW
	bottom := float64(height - forestBottom)

	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="forest" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" height="%d">`,
		template.HTMLEscapeString(label), width, height, width, height)
	// The band where a change is too small to matter, and no change.
	bl, bh := x(1/(1+minEffect)), x(1+minEffect)
	fmt.Fprintf(&s, `<rect class="band" x="%.1f" y="%d" width="%.1f" height="%.1f"><title>within ±%s: a change this small is called same when the whole interval lies inside</title></rect>`,
		bl, forestTop-6, bh-bl, bottom-float64(forestTop)+6, template.HTMLEscapeString(fmtFraction(minEffect)))
	for _, t := range forestTicks {
		if v := math.Log10(t); v < lo || v > hi {
			continue
		}
		cls := "grid"
		if t == 1 {
			cls = "zero"
		}
		fmt.Fprintf(&s, `<line class="%s" x1="%.1f" x2="%.1f" y1="%d" y2="%.1f"/>`, cls, x(t), x(t), forestTop-6, bottom)
		fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(t), forestTop-10, template.HTMLEscapeString(ratioTick(t)))
	}
	fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%d" text-anchor="end">±%s band</text>`, x0+forestPlotW, height-2, template.HTMLEscapeString(fmtFraction(minEffect)))

	y := forestTop
	for _, g := range groups {
		fmt.Fprintf(&s, `<text class="group" x="4" y="%d">%s</text>`, y+15, template.HTMLEscapeString(g.Label))
		y += forestHeadH
		for _, r := range g.Rows {
			forestDrawRow(&s, r, float64(y)+forestRowH/2, x, lo, hi)
			y += forestRowH
		}
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// forestDrawRow draws one row centred at cy: its label, its interval and
// estimate in the call's colour, and the call in words on the right.
func forestDrawRow(s *strings.Builder, r forestRow, cy float64, x func(float64) float64, lo, hi float64) {
	c := r.Change
	col := callColor(c.Call)
	title := fmt.Sprintf("%s, %s c=%d: %s", stepLabel(r.Step), r.Step.Case, r.Step.Concurrency, CallText(c))
	if c.Reason != "" {
		title += " — " + c.Reason
	}
	fmt.Fprintf(s, `<g class="row call-%s"><title>%s</title>`, c.Call, template.HTMLEscapeString(title))
	fmt.Fprintf(s, `<text x="16" y="%.1f">%s <tspan class="tick">c=%d</tspan></text>`, cy+4, template.HTMLEscapeString(r.Step.Case), r.Step.Concurrency)
	text := callLabel(c)
	switch {
	case c.Call == stats.CallInvalid:
		fmt.Fprintf(s, `<rect x="%.1f" y="%.1f" width="%d" height="12" fill="url(#hatch)" stroke="#c9c9c9"/>`, x(math.Pow(10, lo)), cy-6, forestPlotW)
		text = "invalid: " + c.Reason
	case c.Bounded():
		l, h := ratioOf(*c.CILowPct), ratioOf(*c.CIHighPct)
		fmt.Fprintf(s, `<line class="ci" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, x(l), x(h), cy, cy, col)
		// An interval past the axis ends in an arrow, not a cap.
		for _, end := range []struct {
			r   float64
			dir float64
		}{{l, -1}, {h, 1}} {
			v := math.Log10(end.r)
			if v < lo || v > hi {
				fmt.Fprintf(s, `<path d="M%.1f %.1fl%.1f 4l%.1f 4z" fill="%s"/>`, x(end.r), cy-4, 6*end.dir, -6*end.dir, col)
			} else {
				fmt.Fprintf(s, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, x(end.r), x(end.r), cy-4, cy+4, col)
			}
		}
		text += " " + fmtPct(c.EstimatePct) + " " + intervalText(c)
	default:
		fmt.Fprintf(s, `<line class="open" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, x(math.Pow(10, lo)), x(math.Pow(10, hi)), cy, cy, col)
		text += " " + fmtPct(c.EstimatePct) + " " + intervalText(c)
	}
	if c.Call != stats.CallInvalid && ratioOf(c.EstimatePct) > 0 {
		fmt.Fprintf(s, `<rect class="est" x="%.1f" y="%.1f" width="8" height="8" fill="%s"/>`, x(ratioOf(c.EstimatePct))-4, cy-4, col)
	}
	if len(r.Step.Flagged) > 0 {
		text = "⚠ " + text
	}
	fmt.Fprintf(s, `<text class="calltext" x="%d" y="%.1f" style="fill:%s">%s</text></g>`, forestLabelW+forestPlotW+10, cy+4, col, template.HTMLEscapeString(clip(text, 68)))
}

// ratioTick labels an axis ratio as the change it is: 0.5 → "−50 %".
func ratioTick(r float64) string {
	if r == 1 {
		return "0"
	}
	return fmt.Sprintf("%+.0f %%", (r-1)*100)
}

// sortedByEffect returns the rows of every group, largest loss first and
// largest gain last, invalid calls at the end: the order of the Markdown
// report's table.
func sortedByEffect(groups []forestGroup) []forestRow {
	var rows []forestRow
	for _, g := range groups {
		rows = append(rows, g.Rows...)
	}
	slices.SortStableFunc(rows, func(a, b forestRow) int {
		ai, bi := a.Change.Call == stats.CallInvalid, b.Change.Call == stats.CallInvalid
		if ai != bi {
			if ai {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Change.EstimatePct, b.Change.EstimatePct)
	})
	return rows
}

// forestTextWidth is the characters of the Markdown report's text forest.
const forestTextWidth = 31

// forestText draws one row of the forest plot in text, on the same log
// axis (lo, hi in log10 of the ratio): '─' the interval, '●' the
// estimate, '┊' no change, '·' the ±min_effect band's edges, '◂' or '▸'
// an interval that runs past the axis, '?' along the whole axis when
// there is no finite interval.
func forestText(c analysis.Change, lo, hi, minEffect float64) string {
	if c.Call == stats.CallInvalid {
		return ""
	}
	col := func(ratio float64) int {
		v := math.Log10(ratio)
		f := (v - lo) / (hi - lo)
		return max(0, min(forestTextWidth-1, int(math.Round(f*float64(forestTextWidth-1)))))
	}
	line := []rune(strings.Repeat(" ", forestTextWidth))
	line[col(1/(1+minEffect))], line[col(1+minEffect)] = '·', '·'
	line[col(1)] = '┊'
	if c.Bounded() {
		l, h := ratioOf(*c.CILowPct), ratioOf(*c.CIHighPct)
		if l > 0 {
			for i := col(l); i <= col(h); i++ {
				line[i] = '─'
			}
			if math.Log10(l) < lo {
				line[0] = '◂'
			}
		}
		if math.Log10(h) > hi {
			line[forestTextWidth-1] = '▸'
		}
	} else {
		for i := range line {
			if line[i] == ' ' {
				line[i] = '?'
			}
		}
	}
	if r := ratioOf(c.EstimatePct); r > 0 {
		line[col(r)] = '●'
	}
	return string(line)
}
