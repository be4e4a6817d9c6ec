package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"html/template"
	"math"
	"regexp"
	"strings"
)

// Charts are inline SVG written here, so the HTML page needs nothing from
// the network. Coordinates are in a fixed viewBox; CSS scales the picture.

// palette colours the stacks in step order (Okabe–Ito, safe for colour
// blindness; yellow left out, it is unreadable on white).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999"}

// stackColor returns the colour of the i-th stack.
func stackColor(i int) string { return palette[i%len(palette)] }

// bar is one bar of a bar chart: a value with an optional whisker, or a
// hatched placeholder saying why there is no value.
type bar struct {
	Color string
	Value float64
	// Lo and Hi bound the whisker when Whisker is set.
	Lo, Hi  float64
	Whisker bool
	// Missing, when set, replaces the bar by a labelled hatched box:
	// "invalid", "failed", "missing".
	Missing string
	// Label is printed above the bar; Title is the tooltip.
	Label string
	Title string
	// Flagged draws a warning mark under the bar (contended, client-bound).
	Flagged bool
}

// barGroup is bars side by side under one label (one concurrency).
type barGroup struct {
	Label string
	Bars  []bar
}

// Chart geometry, in viewBox units.
const (
	chartTop    = 50
	chartPlot   = 170
	chartBottom = 40
	chartLeft   = 60
	chartRight  = 12
	barWidth    = 32
	barGap      = 6
	groupGap    = 36
	// chartMinWidth is the narrowest bar chart.
	chartMinWidth = 380
)

// barChart draws grouped bars with a linear axis from zero.
func barChart(label string, groups []barGroup, tick func(float64) string) template.HTML {
	top := 0.0
	for _, g := range groups {
		for _, b := range g.Bars {
			if b.Missing == "" {
				top = math.Max(top, math.Max(b.Value, b.Hi))
			}
		}
	}
	ticks := niceTicks(top)
	axisMax := ticks[len(ticks)-1]
	width := chartLeft + chartRight
	for _, g := range groups {
		width += len(g.Bars)*(barWidth+barGap) + groupGap
	}
	// A chart of few bars is widened to chartMinWidth, the groups spread
	// apart, so that it does not sit tiny in its card.
	gap := groupGap
	if width < chartMinWidth && len(groups) > 0 {
		gap += (chartMinWidth - width) / len(groups)
		width = chartMinWidth
	}
	height := chartTop + chartPlot + chartBottom
	y := func(v float64) float64 { return chartTop + chartPlot - v/axisMax*chartPlot }

	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" height="%d">`,
		template.HTMLEscapeString(label), width, height, width, height)
	for _, t := range ticks {
		fmt.Fprintf(&s, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, chartLeft, width-chartRight, y(t), y(t))
		fmt.Fprintf(&s, `<text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y(t)+4, template.HTMLEscapeString(tick(t)))
	}
	x := chartLeft + gap/2
	for _, g := range groups {
		gx := x
		for _, b := range g.Bars {
			drawBar(&s, b, float64(x), y)
			x += barWidth + barGap
		}
		mid := float64(gx+x-barGap) / 2
		fmt.Fprintf(&s, `<text class="group" x="%.1f" y="%d" text-anchor="middle">%s</text>`, mid, chartTop+chartPlot+30, template.HTMLEscapeString(g.Label))
		x += gap
	}
	fmt.Fprintf(&s, `<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>`, chartLeft, width-chartRight, chartTop+chartPlot, chartTop+chartPlot)
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// drawBar draws one bar, its whisker and its label at x.
func drawBar(s *strings.Builder, b bar, x float64, y func(float64) float64) {
	base := y(0)
	title := "<title>" + template.HTMLEscapeString(b.Title) + "</title>"
	if b.Missing != "" {
		h := chartPlot * 0.45
		fmt.Fprintf(s, `<g class="missing">%s<rect x="%.1f" y="%.1f" width="%d" height="%.1f" fill="url(#hatch)" stroke="%s"/>`, title, x, base-h, barWidth, h, b.Color)
		fmt.Fprintf(s, `<text class="missing-label" transform="translate(%.1f %.1f) rotate(-90)">%s</text></g>`, x+barWidth/2+4, base-6, template.HTMLEscapeString(b.Missing))
		return
	}
	top := y(b.Value)
	fmt.Fprintf(s, `<g class="bar">%s<rect x="%.1f" y="%.1f" width="%d" height="%.1f" fill="%s"/>`, title, x, top, barWidth, base-top, b.Color)
	if b.Whisker {
		cx := x + barWidth/2
		fmt.Fprintf(s, `<path class="whisker" d="M%.1f %.1fV%.1fM%.1f %.1fh10M%.1f %.1fh10"/>`, cx, y(b.Lo), y(b.Hi), cx-5, y(b.Lo), cx-5, y(b.Hi))
		top = math.Min(top, y(b.Hi))
	}
	fmt.Fprintf(s, `<text class="value" transform="translate(%.1f %.1f) rotate(-90)">%s</text>`, x+barWidth/2+4, top-4, template.HTMLEscapeString(b.Label))
	if b.Flagged {
		fmt.Fprintf(s, `<text class="flag" x="%.1f" y="%.1f" text-anchor="middle">⚠</text>`, x+barWidth/2, base+14)
	}
	s.WriteString(`</g>`)
}

// niceTicks returns axis ticks from 0 to at least top, in steps of 1, 2 or 5
// times a power of ten, about four of them.
func niceTicks(top float64) []float64 {
	if !(top > 0) || math.IsInf(top, 0) {
		return []float64{0, 1}
	}
	raw := top / 4
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step := pow * 10
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= raw {
			step = m * pow
			break
		}
	}
	var ticks []float64
	for t := 0.0; ; t += step {
		ticks = append(ticks, t)
		if t >= top*0.999999 {
			break
		}
	}
	return ticks
}

// tickText formats an axis value: 0 as "0", and without the trailing
// zeros that tables keep for alignment ("1.00 ms" → "1 ms").
func tickText(format func(float64) string, v float64) string {
	if v == 0 {
		return "0"
	}
	return trailingZeros.ReplaceAllString(format(v), "$1")
}

var trailingZeros = regexp.MustCompile(`\.0+(\D|$)`)

// latRow is one line of a latency chart: a cell's percentiles, or why it has none.
type latRow struct {
	Label   string
	Color   string
	Latency analysis.Latency
	Missing string
}

// latencyMarks are the percentiles a latency chart marks, with their shapes.
var latencyMarks = []struct {
	name string
	v    func(analysis.Latency) float64
}{
	{"p50", func(l analysis.Latency) float64 { return l.P50 }},
	{"p90", func(l analysis.Latency) float64 { return l.P90 }},
	{"p99", func(l analysis.Latency) float64 { return l.P99 }},
	{"p99.9", func(l analysis.Latency) float64 { return l.P999 }},
	{"max", func(l analysis.Latency) float64 { return l.Max }},
}

// latencyChart draws one row per cell on a logarithmic axis: a line from
// p50 to max with a mark at each percentile.
func latencyChart(label string, rows []latRow) template.HTML {
	lo, hi := math.Inf(1), 0.0
	for _, r := range rows {
		if r.Missing != "" {
			continue
		}
		for _, mk := range latencyMarks {
			if v := mk.v(r.Latency); v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == 0 {
		lo, hi = 1, 1000
	}
	decLo := math.Floor(math.Log10(lo))
	decHi := math.Max(math.Ceil(math.Log10(hi)), decLo+1)
	const left, right, rowH, top = 130, 34, 22, 30
	width := 620
	height := top + len(rows)*rowH + 28
	x := func(v float64) float64 {
		return left + (math.Log10(v)-decLo)/(decHi-decLo)*float64(width-left-right)
	}
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart latency" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" height="%d">`,
		template.HTMLEscapeString(label), width, height, width, height)
	for d := decLo; d <= decHi; d++ {
		v := math.Pow(10, d)
		fmt.Fprintf(&s, `<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, x(v), x(v), top-6, height-24)
		fmt.Fprintf(&s, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(v), height-8, template.HTMLEscapeString(tickText(fmtMicros, v)))
	}
	for i, mk := range latencyMarks {
		fmt.Fprintf(&s, `<g class="legend"><path class="mark m%d" d="%s"/><text class="tick" x="%d" y="14">%s</text></g>`, i, markPath(i, float64(left+i*70), 10), left+i*70+8, mk.name)
	}
	for i, r := range rows {
		cy := float64(top + i*rowH + rowH/2)
		fmt.Fprintf(&s, `<text class="row" x="%d" y="%.1f" text-anchor="end">%s</text>`, left-8, cy+4, template.HTMLEscapeString(r.Label))
		if r.Missing != "" {
			fmt.Fprintf(&s, `<g class="missing"><rect x="%d" y="%.1f" width="%d" height="%d" fill="url(#hatch)" stroke="%s"/><text class="missing-label" x="%d" y="%.1f">%s</text></g>`,
				left, cy-7, width-left-right, 14, r.Color, left+6, cy+4, template.HTMLEscapeString(r.Missing))
			continue
		}
		l := r.Latency
		title := fmt.Sprintf("%s: p50 %s, p90 %s, p99 %s, p99.9 %s, max %s", r.Label, fmtMicros(l.P50), fmtMicros(l.P90), fmtMicros(l.P99), fmtMicros(l.P999), fmtMicros(l.Max))
		fmt.Fprintf(&s, `<g class="lat"><title>%s</title><line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`,
			template.HTMLEscapeString(title), x(math.Max(l.P50, 1)), x(math.Max(l.Max, 1)), cy, cy, r.Color)
		for j, mk := range latencyMarks {
			if v := mk.v(l); v > 0 {
				fmt.Fprintf(&s, `<path class="mark m%d" d="%s" fill="%s" stroke="%s"/>`, j, markPath(j, x(v), cy), r.Color, r.Color)
			}
		}
		s.WriteString(`</g>`)
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// markPath is the shape of the j-th percentile mark centred at (x, y):
// circle-like diamond, square, triangle, bar, cross.
func markPath(j int, x, y float64) string {
	switch j {
	case 0:
		return fmt.Sprintf("M%.1f %.1fl4 4-4 4-4-4z", x, y-4)
	case 1:
		return fmt.Sprintf("M%.1f %.1fh7v7h-7z", x-3.5, y-3.5)
	case 2:
		return fmt.Sprintf("M%.1f %.1fl4.5 8h-9z", x, y-4.5)
	case 3:
		return fmt.Sprintf("M%.1f %.1fh3v10h-3z", x-1.5, y-5)
	default:
		return fmt.Sprintf("M%.1f %.1fl8 8m0-8l-8 8", x-4, y-4)
	}
}
