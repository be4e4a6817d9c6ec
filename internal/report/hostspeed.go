package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"html/template"
	"math"
	"strings"

	"github.com/stackbench/stackbench/internal/host"
)

// hostSpeedStrip draws the host's speed over the run: one bar per final
// window, in journal order, its height how much slower than the run's
// reference the window's slower probe ran, red past host.HostSlowShare (a
// host_slow window), with the threshold as a dashed line. A slow minute of
// the machine shows as a run of tall bars instead of becoming a result.
func hostSpeedStrip(hs analysis.HostSpeed) template.HTML {
	n := len(hs.Windows)
	if n == 0 {
		return ""
	}
	const w, h, top, bottom = 720.0, 90.0, 8.0, 18.0
	lo, hi := -20.0, 60.0
	for _, p := range hs.Windows {
		hi = max(hi, math.Min(p.SlowerPct, 200))
	}
	y := func(v float64) float64 { return top + (hi-math.Max(lo, math.Min(v, hi)))/(hi-lo)*(h-top-bottom) }
	bw := w / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="hostspeed" viewBox="0 0 %.0f %.0f" role="img" aria-label="host speed over the run: per window, how much slower the host-speed probe ran than at the start">`, w, h)
	fmt.Fprintf(&b, `<line x1="0" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#8c959f" stroke-width="1"/>`, w, y(0), y(0))
	thr := 100 * host.HostSlowShare
	fmt.Fprintf(&b, `<line x1="0" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#c0392b" stroke-dasharray="4 3" stroke-width="1"/>`, w, y(thr), y(thr))
	fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" font-size="10" text-anchor="end" fill="#c0392b">+%.0f %% (host_slow)</text>`, w-2, y(thr)-2, thr)
	for i, p := range hs.Windows {
		color := "#8fb3d9"
		if p.HostSlow || p.SlowerPct > thr {
			color = "#c0392b"
		}
		y0, y1 := y(0), y(p.SlowerPct)
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"><title>%s: probe %+.1f %% against the start</title></rect>`,
			float64(i)*bw, math.Min(y0, y1), math.Max(bw-0.5, 0.5), math.Max(math.Abs(y1-y0), 0.5), color, template.HTMLEscapeString(p.Key), p.SlowerPct)
	}
	fmt.Fprintf(&b, `<text x="0" y="%.0f" font-size="10" fill="#5b6673">first window</text><text x="%.0f" y="%.0f" font-size="10" text-anchor="end" fill="#5b6673">last window (%d)</text></svg>`, h-4, w, h-4, n)
	return template.HTML(b.String())
}
