package report

import (
	"bytes"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
)

// TestHTMLOpensWithForestPlot renders the fixture in Chromium: the first
// thing after the verdict is the forest plot, one row per step and case in
// the colour of its call, only the throughput panel shown; the protocol
// is folded under "How this was measured"; the first screen is a picture
// (a screenshot that is not blank), with no console error.
func TestHTMLOpensWithForestPlot(t *testing.T) {
	page, m := writeFixtureHTML(t)
	dom, log := renderInChromium(t, page)
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("chromium console: %s", line)
		}
	}
	if strings.Contains(dom, "data-errors=") {
		t.Errorf("script errors on the page: %s", regexp.MustCompile(`data-errors="[^"]*"`).FindString(dom))
	}

	forest := strings.Index(dom, `<svg class="forest"`)
	if forest < 0 {
		t.Fatal("no forest plot on the page")
	}
	for _, later := range []string{`id="measured"`, `id="steps"`, `id="charts"`, `id="cells"`} {
		if i := strings.Index(dom, later); i < forest {
			t.Errorf("%s comes before the forest plot (at %d, the plot at %d)", later, i, forest)
		}
	}
	if i := strings.Index(dom, `id="verdict"`); i < 0 || i > forest {
		t.Error("the verdict does not come before the forest plot")
	}

	// One row per step in each panel, coloured by its own call.
	tp := between(dom[forest:], `<svg class="forest"`, `</svg>`)
	want := map[stats.Call]int{}
	for _, s := range m.Steps {
		want[s.Throughput.Call]++
	}
	total := 0
	for call, n := range want {
		if got := strings.Count(tp, `<g class="row call-`+string(call)+`">`); got != n {
			t.Errorf("throughput forest: %d rows called %s, want %d", got, call, n)
		}
		total += n
	}
	if got := strings.Count(tp, `<g class="row `); got != total {
		t.Errorf("throughput forest: %d rows, want %d (one per step and case)", got, total)
	}
	if !strings.Contains(tp, `class="band"`) || !strings.Contains(tp, `class="zero"`) {
		t.Error("the forest plot lacks its ±min_effect band or its line of no change")
	}
	// The page's script counts the rows of the forests it can see: the
	// throughput panel only, the per-CPU one behind its tab.
	if got := regexp.MustCompile(`data-forest-rows="(\d+)"`).FindStringSubmatch(dom); got == nil || got[1] != strconv.Itoa(total) {
		t.Errorf("forest rows shown: %v, want %d (one panel visible)", got, total)
	}

	measured := between(dom, `<details class="measured" id="measured">`, `</details>`)
	if measured == "" {
		t.Fatal(`no folded "How this was measured"`)
	}
	for _, w := range []string{"How this was measured", "Layout:", "Each step is called"} {
		if !strings.Contains(measured, w) {
			t.Errorf("How this was measured lacks %q", w)
		}
	}
	if strings.Contains(dom[:forest], "Layout:") {
		t.Error("the protocol is still above the forest plot")
	}

	shot := screenshotInChromium(t, page)
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	// A first screen that draws the plot has the calls' colours in it.
	colours := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	if len(colours) < 20 {
		t.Errorf("the screenshot has %d colours: a blank page?", len(colours))
	}
}

// TestMarkdownForestSortedByEffect: the Markdown report opens with every
// step as a row, sorted by its estimated change, invalid calls last, each
// drawn in text with the estimate left of "no change" for a loss.
func TestMarkdownForestSortedByEffect(t *testing.T) {
	m := fixtureModel(t)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, m); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	sec := between(md, "## Every step by effect", "\n## ")
	if sec == "" {
		t.Fatal("no table of steps by effect")
	}
	if i, j := strings.Index(md, "## Every step by effect"), strings.Index(md, "## What each step bought"); j >= 0 && i > j {
		t.Error("the table by effect comes after the steps' tables")
	}
	var rows []string
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| step ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != len(m.Steps) {
		t.Fatalf("%d rows, want %d (one per step and case)", len(rows), len(m.Steps))
	}
	last, invalidSeen := -1e9, false
	for _, r := range rows {
		cols := strings.Split(r, " | ")
		est := cols[4]
		if strings.HasPrefix(est, "invalid") {
			invalidSeen = true
			continue
		}
		if invalidSeen {
			t.Errorf("a valid call after an invalid one: %s", r)
		}
		v, err := strconv.ParseFloat(strings.TrimPrefix(strings.Fields(est)[0], "±"), 64)
		if err != nil {
			t.Fatalf("estimate %q: %v", est, err)
		}
		if v < last {
			t.Errorf("not sorted by effect: %v after %v", v, last)
		}
		last = v
		pic := strings.Trim(strings.TrimSuffix(cols[5], " |"), "`")
		dot, zero := strings.IndexRune(pic, '●'), strings.IndexRune(pic, '┊')
		if dot < 0 {
			t.Errorf("row without its estimate drawn: %s", r)
		}
		if zero >= 0 && v < -1 && dot > zero {
			t.Errorf("a loss drawn right of no change: %s", r)
		}
	}
}

// TestForestText pins the text drawing: the band's edges, no change, the
// interval and the estimate on one log axis; an open interval along the
// whole axis.
func TestForestText(t *testing.T) {
	lo, hi := -0.1, 0.1 // about −21 % … +26 %
	pct := func(v float64) *float64 { return &v }
	loss := analysis.Change{Call: stats.CallLoss, EstimatePct: -15, CILowPct: pct(-18), CIHighPct: pct(-11)}
	got := forestText(loss, lo, hi, 0.05)
	if len([]rune(got)) != forestTextWidth {
		t.Fatalf("width %d, want %d: %q", len([]rune(got)), forestTextWidth, got)
	}
	if d, z := strings.IndexRune(got, '●'), strings.IndexRune(got, '┊'); d < 0 || z < 0 || d > z {
		t.Errorf("a loss of 15 %% drawn %q: the estimate must sit left of no change", got)
	}
	if strings.Count(got, "·") != 2 {
		t.Errorf("%q: want both edges of the ±5 %% band", got)
	}
	open := analysis.Change{Call: stats.CallUndecided, EstimatePct: 3}
	if got := forestText(open, lo, hi, 0.05); !strings.Contains(got, "?") || !strings.ContainsRune(got, '●') {
		t.Errorf("no finite interval drawn %q, want '?' along the axis and the estimate", got)
	}
	wide := analysis.Change{Call: stats.CallUndecided, EstimatePct: 0, CILowPct: pct(-60), CIHighPct: pct(150)}
	if got := forestText(wide, lo, hi, 0.05); !strings.HasPrefix(got, "◂") || !strings.HasSuffix(got, "▸") {
		t.Errorf("an interval past both ends drawn %q, want arrows at both ends", got)
	}
	if got := forestText(analysis.Change{Call: stats.CallInvalid}, lo, hi, 0.05); got != "" {
		t.Errorf("invalid drawn %q, want nothing", got)
	}
}
