package report

import (
	"bytes"
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
	"testing"
)

func TestHostSpeedStripShowsASlowMinute(t *testing.T) {
	m := fixtureModel(t)
	m.Header.HostSpeed = analysis.HostSpeed{Probes: 8, ProbeMedianMs: 4.1, ProbeMinMs: 3.9, ProbeMaxMs: 5.6, Windows: []analysis.HostSpeedPoint{
		{Key: "r1/a/health/c32", SlowerPct: 1.5},
		{Key: "r1/a/user/c32", SlowerPct: 35, HostSlow: true},
		{Key: "r1/a/list/c32", SlowerPct: -2},
		{Key: "r1/a/order/c32", SlowerPct: 4},
	}}
	strip := string(hostSpeedStrip(m.Header.HostSpeed))
	if n := strings.Count(strip, "<rect"); n != 4 {
		t.Errorf("%d bars, want one per window", n)
	}
	if strings.Count(strip, `fill="#c0392b"><title>`) != 1 || !strings.Contains(strip, "r1/a/user/c32: probe +35.0 %") {
		t.Errorf("the slow window is not the one red bar:\n%s", strip)
	}
	var page, md bytes.Buffer
	if err := WriteHTML(&page, m); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `id="host-speed"`) || !strings.Contains(md.String(), "Host speed: a fixed-work CPU probe around every window took 4.10 ms (median; 3.90–5.60 ms); 1 kept window(s)") {
		t.Error("the host speed is not in the HTML header or the Markdown")
	}
	if hostSpeedStrip(analysis.HostSpeed{}) != "" {
		t.Error("a run without probes draws a strip")
	}
}

// The group tables' header row is groupHead, once: the cells of each row
// line up under it.
func TestHTMLGroupTableHeader(t *testing.T) {
	m := fixtureModel(t)
	var page bytes.Buffer
	if err := WriteHTML(&page, m); err != nil {
		t.Fatal(err)
	}
	want := "<tr><th>" + strings.Join(groupHead, "</th><th>") + "</th></tr>"
	if n := strings.Count(page.String(), want); n != 2 {
		t.Errorf("%d group tables with the header %q, want 2 (database and framework-only routes)", n, want)
	}
	if len(groupRow(m.Groups[0])) != len(groupHead) {
		t.Errorf("a group row has %d cells, the header %d", len(groupRow(m.Groups[0])), len(groupHead))
	}
}
