package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// capacityChart draws one case's probes: latency (log axis) against the
// offered rate (linear axis from 0), p50 as a ring and p99 as a dot (a
// cross when the probe failed), each stack in its colour on the same
// axes, the SLO as a dashed horizontal line, and each stack's capacity
// as a tick on the rate axis.
func capacityChart(c CapacityCase, colors map[string]string) template.HTML {
	lo, hi, maxRate := float64(c.SLOMicros), float64(c.SLOMicros), 0.0
	for _, r := range c.Rows {
		for _, p := range r.Probes {
			maxRate = math.Max(maxRate, p.RateRPS)
			for _, v := range []int64{p.P50Micros, p.P99Micros} {
				if v > 0 {
					lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
				}
			}
		}
	}
	if maxRate == 0 || lo <= 0 {
		return ""
	}
	decLo := math.Floor(math.Log10(lo))
	decHi := math.Max(math.Ceil(math.Log10(hi)), decLo+1)
	const width, height, left, right, top, bottom = 640, 300, 64, 16, 34, 40
	xTop := niceTicks(maxRate * 1.05)
	xMax := xTop[len(xTop)-1]
	x := func(rate float64) float64 { return left + rate/xMax*float64(width-left-right) }
	y := func(us float64) float64 {
		return float64(height-bottom) - (math.Log10(us)-decLo)/(decHi-decLo)*float64(height-top-bottom)
	}
	var s strings.Builder
	label := fmt.Sprintf("%s: latency against offered rate, SLO %s", c.Case, c.SLO)
	fmt.Fprintf(&s, `<svg class="chart capacity" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" height="%d">`,
		template.HTMLEscapeString(label), width, height, width, height)
	for d := decLo; d <= decHi; d++ {
		v := math.Pow(10, d)
		fmt.Fprintf(&s, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`,
			left, width-right, y(v), y(v), left-6, y(v)+4, template.HTMLEscapeString(tickText(fmtMicros, v)))
	}
	for _, t := range xTop {
		fmt.Fprintf(&s, `<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			x(t), x(t), top, height-bottom, x(t), height-bottom+16, template.HTMLEscapeString(tickText(fmtRate, t)))
	}
	fmt.Fprintf(&s, `<text class="tick" x="%d" y="%d" text-anchor="end">offered rate (req/s)</text>`, width-right, height-6)
	sy := y(float64(c.SLOMicros))
	fmt.Fprintf(&s, `<line class="slo" x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#D55E00" stroke-dasharray="6 4" stroke-width="1.5"/><text class="tick" x="%d" y="%.1f">SLO %s</text>`,
		left, width-right, sy, sy, left+4, sy-4, template.HTMLEscapeString(c.SLO))
	fmt.Fprintf(&s, `<g class="legend"><circle cx="%d" cy="14" r="3.5" fill="none" stroke="#000"/><text class="tick" x="%d" y="18">p50</text><circle cx="%d" cy="14" r="3.5"/><text class="tick" x="%d" y="18">p99</text><path d="M%d 10l7 7m0-7l-7 7" stroke="#000"/><text class="tick" x="%d" y="18">p99, probe failed</text></g>`,
		left, left+8, left+50, left+58, left+100, left+111)
	for _, r := range c.Rows {
		col := colors[r.Stack]
		fmt.Fprintf(&s, `<g class="probes"><title>%s</title>`, template.HTMLEscapeString(r.Stack))
		for _, p := range r.Probes {
			search := ""
			if len(r.SearchResults) > 1 {
				search = fmt.Sprintf(" (search %d)", p.Search)
			}
			title := fmt.Sprintf("%s%s %s at %s req/s: p50 %s, p99 %s, %s", r.Stack, search, p.Phase, fmtRate(p.RateRPS), fmtMicros(float64(p.P50Micros)), fmtMicros(float64(p.P99Micros)), passText(p.Pass))
			fmt.Fprintf(&s, `<g><title>%s</title>`, template.HTMLEscapeString(title))
			px := x(p.RateRPS)
			if p.P50Micros > 0 {
				fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="none" stroke="%s"/>`, px, y(float64(p.P50Micros)), col)
			}
			if p.P99Micros > 0 {
				py := y(float64(p.P99Micros))
				if p.Pass {
					fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`, px, py, col)
				} else {
					fmt.Fprintf(&s, `<path d="M%.1f %.1fl7 7m0-7l-7 7" stroke="%s" stroke-width="1.5"/>`, px-3.5, py-3.5, col)
				}
			}
			s.WriteString(`</g>`)
		}
		if r.CapacityRPS > 0 {
			fmt.Fprintf(&s, `<path class="capacity-mark" d="M%.1f %dv8" stroke="%s" stroke-width="3"><title>%s capacity %s req/s</title></path>`,
				x(r.CapacityRPS), height-bottom-8, col, template.HTMLEscapeString(r.Stack), fmtRate(r.CapacityRPS))
		}
		s.WriteString(`</g>`)
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

func passText(pass bool) string {
	if pass {
		return "passed"
	}
	return "failed"
}
