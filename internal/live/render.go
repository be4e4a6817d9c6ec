package live

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/report"
)

var statusTemplate = template.Must(template.New("status").Parse(`<div class="phase">phase: <b data-phase="{{.P.Phase}}">{{.P.Phase}}</b>{{if .Stale}} <span class="muted">({{.Stale}})</span>{{end}}</div>
<div class="bar"><div class="fill" style="width:{{.Pct}}%"></div></div>
<p id="progress" data-done="{{.P.WindowsDone}}" data-planned="{{.P.WindowsPlanned}}">{{.P.WindowsDone}} of {{.P.WindowsPlanned}}{{if .P.Adaptive}}+{{end}} windows · round {{.P.Round}} of {{.P.Rounds}}{{if .P.Adaptive}}+{{end}} ({{.P.RoundsDone}} done, {{.Left}} left){{if .ETA}} · ETA {{.ETA}}{{end}}</p>
{{if .Redo}}<p class="redo">{{.Redo}}</p>{{range .P.RedoReasons}}<p class="muted small">{{.}}</p>{{end}}{{end}}
{{if .Problems}}<p class="muted small">journal: {{.Problems}}</p>{{end}}
{{if .Series}}<div class="series">{{.CPU}}{{.RSS}}</div>{{end}}`))

// statusView is the status fragment's data: every figure formatted.
type statusView struct {
	P          Progress
	Pct        string
	Left       int
	ETA, Stale string
	Redo       string
	Problems   string
	Series     bool
	CPU, RSS   template.HTML
}

// renderStatus writes the status fragment: phase, progress bar, rounds
// and windows done and left, the ETA, the redone windows and why, and the
// stacks' CPU and memory over time.
func renderStatus(p Progress, series []stackSeries, colors map[string]string, problems []string, now time.Time) (string, error) {
	v := statusView{P: p, Pct: fmt.Sprintf("%.1f", 100*p.Fraction()), Left: max(p.Rounds-p.RoundsDone, 0), Redo: p.RedoLine()}
	if p.ETA > 0 && p.Phase == PhaseRounds {
		v.ETA = p.ETA.Round(time.Second).String()
	}
	if p.Phase != PhaseFinished && !p.LastRecord.IsZero() {
		if quiet := now.Sub(p.LastRecord); quiet > 2*time.Minute {
			v.Stale = "no window for " + quiet.Round(time.Minute).String()
		}
	}
	if n := len(problems); n > 0 {
		v.Problems = fmt.Sprintf("%d line(s) skipped; latest: %s", n, problems[n-1])
	}
	if len(series) > 0 {
		v.Series = true
		v.CPU = lineChart("server CPU (cores) per window", series, colors, func(pt seriesPoint) float64 { return pt.Cores }, func(x float64) string { return fmt.Sprintf("%.2f", x) })
		v.RSS = lineChart("server memory (mean RSS, MiB) per window", series, colors, func(pt seriesPoint) float64 { return float64(pt.RSSBytes) / (1 << 20) }, func(x float64) string { return fmt.Sprintf("%.0f", x) })
	}
	var b bytes.Buffer
	if err := statusTemplate.Execute(&b, v); err != nil {
		return "", fmt.Errorf("render the live status: %w", err)
	}
	return b.String(), nil
}

var rowTemplate = template.Must(template.New("row").Parse(`<tr class="{{if not .W.Final}}redo{{else if .Flags}}flagged{{end}}"><td>{{.At}}</td><td>{{.W.Key}}</td><td>{{if .W.Final}}{{if gt .W.Attempt 1}}try {{.W.Attempt}}{{end}}{{else}}redone{{end}}</td><td class="num">{{.Rate}}</td><td class="num">{{.CPU}}</td><td class="num">{{.P50}}</td><td class="num">{{.P99}}</td><td>{{.Flags}}</td><td class="small">{{.Reasons}}</td></tr>`))

// renderRow writes one window try as a table row: when it ended, its key,
// its try, rate, server CPU, p50 and p99, its flags and their reasons.
func renderRow(w journal.Window) (string, error) {
	v := struct {
		W              journal.Window
		At, Rate, CPU  string
		P50, P99       string
		Flags, Reasons string
	}{W: w, At: w.EndedAt.Local().Format("15:04:05"), Rate: "—", CPU: fmt.Sprintf("%.2f", w.Server.Cores), P50: "—", P99: "—"}
	if w.Load != nil {
		v.Rate = fmt.Sprintf("%.0f", w.Load.ThroughputRPS)
		v.P50, v.P99 = micros(w.Load.LatencyMicros.P50), micros(w.Load.LatencyMicros.P99)
	}
	flags := make([]string, len(w.Flags))
	for i, f := range w.Flags {
		flags[i] = string(f)
	}
	v.Flags = strings.Join(flags, ", ")
	v.Reasons = strings.Join(w.Reasons, "; ")
	if w.Error != "" {
		v.Reasons = strings.TrimPrefix(v.Reasons+"; "+w.Error, "; ")
	}
	var b bytes.Buffer
	if err := rowTemplate.Execute(&b, v); err != nil {
		return "", fmt.Errorf("render a window row: %w", err)
	}
	return b.String(), nil
}

// micros formats a latency in microseconds for people.
func micros(us int64) string {
	switch {
	case us >= 1_000_000:
		return fmt.Sprintf("%.2f s", float64(us)/1e6)
	case us >= 1000:
		return fmt.Sprintf("%.1f ms", float64(us)/1e3)
	default:
		return fmt.Sprintf("%d µs", us)
	}
}

// stackColors maps each stack to the colour the report draws it in.
func stackColors(res *journal.Results) map[string]string {
	out := map[string]string{}
	if res.Plan != nil {
		for i, s := range res.Plan.Plan.Stacks {
			out[s.Name] = report.StackColor(i)
		}
	}
	return out
}

// lineChart draws one metric of every stack over the run's time as an
// inline SVG of polylines: x is the time since the first window ended, y
// the metric from 0 to the highest value.
func lineChart(title string, series []stackSeries, colors map[string]string, y func(seriesPoint) float64, tick func(float64) string) template.HTML {
	const w, h, left, bottom, top = 420.0, 150.0, 44.0, 20.0, 18.0
	var t0, t1 time.Time
	top1 := 0.0
	for _, s := range series {
		for _, p := range s.Points {
			if t0.IsZero() || p.At.Before(t0) {
				t0 = p.At
			}
			if p.At.After(t1) {
				t1 = p.At
			}
			top1 = math.Max(top1, y(p))
		}
	}
	if top1 <= 0 {
		top1 = 1
	}
	span := t1.Sub(t0).Seconds()
	xOf := func(at time.Time) float64 {
		if span <= 0 {
			return left + (w-left-8)/2
		}
		return left + (w-left-8)*at.Sub(t0).Seconds()/span
	}
	yOf := func(v float64) float64 { return top + (h-top-bottom)*(1-v/top1) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="series-chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`, w, h, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<text x="4" y="12" class="t">%s</text>`, template.HTMLEscapeString(title))
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" class="axis"/>`, left, h-bottom, w-8, h-bottom)
	for _, v := range []float64{0, top1 / 2, top1} {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" class="tick" text-anchor="end">%s</text>`, left-4, yOf(v)+3, template.HTMLEscapeString(tick(v)))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" class="tick" text-anchor="end">%s</text>`, w-8, h-4, template.HTMLEscapeString(time.Duration(span*float64(time.Second)).Round(time.Second).String()))
	for _, s := range series {
		col := colors[s.Stack]
		if col == "" {
			col = "#555"
		}
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(p.At), yOf(y(p))))
		}
		fmt.Fprintf(&b, `<polyline class="line" data-stack="%s" fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`,
			template.HTMLEscapeString(s.Stack), col, strings.Join(pts, " "), template.HTMLEscapeString(s.Stack))
		for _, p := range s.Points {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2" fill="%s"/>`, xOf(p.At), yOf(y(p)), col)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
