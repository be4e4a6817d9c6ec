package report

import (
	"fmt"
	"hash/fnv"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/stackbench/stackbench/internal/profiling"
)

// Flame graph geometry, in SVG units.
const (
	flameWidth    = 1200.0
	flameRow      = 17.0
	flameMaxDepth = 48
	flameCharW    = 6.6 // of the 11px monospace labels
)

// flameSVG draws a flame graph as an icicle (the root on top), offline and
// self-contained; every label and tooltip is escaped (function names are
// the profiled program's text). With diff set (the same tree), a frame's
// width is the mean of its two sides and its colour says which side
// spends more: red the step's second, blue its first.
func flameSVG(root, diff *profiling.FlameNode) template.HTML {
	weight := func(n *profiling.FlameNode) float64 { return n.Value }
	if diff != nil {
		weight = func(n *profiling.FlameNode) float64 { return (n.Value + n.Base) / 2 }
	}
	total := weight(root)
	if total <= 0 {
		return ""
	}
	var b strings.Builder
	depth := 0
	var draw func(n *profiling.FlameNode, x float64, level int)
	draw = func(n *profiling.FlameNode, x float64, level int) {
		w := weight(n) / total * flameWidth
		if w < 0.5 || level >= flameMaxDepth {
			return
		}
		depth = max(depth, level+1)
		y := float64(level) * flameRow
		title := fmt.Sprintf("%s: %s µs/request", n.Name, num(n.Value))
		fill := warmColor(n.Name)
		if diff != nil {
			title = fmt.Sprintf("%s: %s → %s per request (%s)", n.Name, num(n.Base), num(n.Value), signedNum(n.Value-n.Base))
			fill = diffColor(n.Base, n.Value)
		}
		fmt.Fprintf(&b, `<g><title>%s</title><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" rx="1"/>`,
			html.EscapeString(title), x, y, w, flameRow-1, fill)
		if chars := int((w - 4) / flameCharW); chars >= 3 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`, x+2, y+12, html.EscapeString(clip(n.Name, chars)))
		}
		b.WriteString("</g>")
		cx := x
		for _, c := range n.Children {
			draw(c, cx, level+1)
			cx += weight(c) / total * flameWidth
		}
	}
	draw(root, 0, 0)
	height := float64(depth) * flameRow
	return template.HTML(fmt.Sprintf(`<svg class="flame" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="100%%" font-family="monospace" font-size="11">%s</svg>`,
		flameWidth, height, b.String()))
}

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// warmColor gives a frame a stable warm colour from its name.
func warmColor(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%120, 40+(v>>16)%40)
}

// diffColor is red where next spends more than base, blue where less, by
// the relative change, grey when equal.
func diffColor(base, next float64) string {
	den := math.Max(base, next)
	if den <= 0 {
		return "rgb(220,220,220)"
	}
	rel := (next - base) / den // -1 … 1
	k := int(math.Round(math.Min(1, math.Abs(rel)*2) * 170))
	if rel > 0 {
		return fmt.Sprintf("rgb(255,%d,%d)", 225-k, 225-k)
	}
	return fmt.Sprintf("rgb(%d,%d,255)", 225-k, 225-k)
}
