package report

import (
	"bytes"
	"context"
	"flag"
	"github.com/stackbench/stackbench/internal/analysis"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

var htmlOut = flag.String("html-out", "", "also write the fixture's report.html to this path (to look at it)")

// chromium returns the path of a headless-capable Chromium. On CI (CI set
// to anything) a missing browser fails the test; on a developer machine it
// skips, since the package is a system one (apt-get install chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; CI needs it for the HTML report test (.ci/run installs Debian's chromium package)")
	}
	t.Skip("chromium not installed (apt-get install chromium); CI runs this test")
	return ""
}

// renderInChromium loads the page from a file in headless Chromium with no
// network and returns the DOM after scripts ran, and Chromium's log.
func renderInChromium(t *testing.T, page string) (dom, log string) {
	t.Helper()
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--dump-dom", "file://"+page)
	// Chromium starts helper processes: on a timeout, kill them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

var shotOut = flag.String("shot-out", "", "also write the screenshot of the fixture's first screen to this path (to look at it)")

// screenshotInChromium takes a PNG of the page's first screen (1300 × 1000
// CSS pixels) in headless Chromium with no network.
func screenshotInChromium(t *testing.T, page string) []byte {
	t.Helper()
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	shot := filepath.Join(t.TempDir(), "shot.png")
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--hide-scrollbars",
		"--window-size=1300,1000", "--screenshot="+shot, "file://"+page)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if *shotOut != "" {
		if err := os.WriteFile(*shotOut, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return png
}

func writeFixtureHTML(t *testing.T) (string, *Model) {
	t.Helper()
	m := fixtureModel(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, m); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if *htmlOut != "" {
		if err := os.WriteFile(*htmlOut, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return page, m
}

// TestHTMLIsSelfContained checks the page asks for nothing outside itself.
func TestHTMLIsSelfContained(t *testing.T) {
	page, _ := writeFixtureHTML(t)
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(src|href)\s*=\s*"(https?:)?//`),
		regexp.MustCompile(`(?i)@import|url\(\s*["']?(https?:)?//`),
		regexp.MustCompile(`(?i)<link\b`),
		regexp.MustCompile(`(?i)<script[^>]*\bsrc=`),
	} {
		if loc := bad.FindIndex(src); loc != nil {
			t.Errorf("report.html refers outside itself: %q", src[loc[0]:min(loc[1]+40, len(src))])
		}
	}
}

// TestHTMLInChromium opens the fixture's page in headless Chromium: no
// script error, every chart drawn, invalid and failed cells shown as such
// and never as a bar, the parity banner first, the footer present.
func TestHTMLInChromium(t *testing.T) {
	page, m := writeFixtureHTML(t)
	dom, log := renderInChromium(t, page)

	if strings.Contains(dom, "data-errors=") {
		t.Errorf("script errors on the page: %s", regexp.MustCompile(`data-errors="[^"]*"`).FindString(dom))
	}
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") || strings.Contains(line, "ERR_") && strings.Contains(line, "file://") {
			t.Errorf("chromium console: %s", line)
		}
	}
	// Four charts per case (throughput, per CPU-second, latency, memory)
	// and the cold-start chart, counted by the page's own script.
	wantCharts := 4*len(m.Header.Cases) + 1
	if got := regexp.MustCompile(`data-charts="(\d+)"`).FindStringSubmatch(dom); got == nil || got[1] != itoa(wantCharts) {
		t.Errorf("charts counted by the page: %v, want %d (did the script run?)", got, wantCharts)
	}
	if n := strings.Count(dom, `<svg class="chart`); n != wantCharts {
		t.Errorf("%d chart SVGs in the DOM, want %d", n, wantCharts)
	}
	if n := strings.Count(dom, `<g class="bar">`); n == 0 {
		t.Error("no bars drawn")
	}
	// gin/order/c=100 is invalid and gin/cpu/c=10 failed: in each of their
	// case's three bar charts they are a labelled hatched box, never a bar.
	for _, c := range []struct {
		caseName, state string
		conc            int
	}{{"order", analysis.CellInvalid, 100}, {"cpu", analysis.CellFailed, 10}} {
		art := between(dom, `id="case-`+c.caseName+`"`, `</article>`)
		if art == "" {
			t.Fatalf("no chart card for case %s", c.caseName)
		}
		cell := "gin c=" + itoa(c.conc) + ":"
		if n := strings.Count(art, `<g class="missing"><title>`+cell+" "+c.state); n != 3 {
			t.Errorf("case %s: %d hatched %s boxes for %s, want 3 (throughput, per CPU-second, memory)", c.caseName, n, c.state, cell)
		}
		if strings.Contains(art, `<g class="bar"><title>`+cell) {
			t.Errorf("case %s: the %s cell %s is drawn as a bar", c.caseName, c.state, cell)
		}
		if !strings.Contains(art, `class="missing-label"`) {
			t.Errorf("case %s: hatched box has no label", c.caseName)
		}
	}
	if !strings.Contains(dom, `id="parity-skipped"`) {
		t.Error("no parity-skipped banner")
	}
	if i, j := strings.Index(dom, `id="parity-skipped"`), strings.Index(dom, "<h1"); i < 0 || j < i {
		t.Error("the parity banner does not come before the title")
	}
	for _, want := range []string{`class="chip overall m-tp call-`, `call-invalid`, `call-gain`, `call-undecided`, `class="ci"`, `id="footer"`, "Protocol", "Environment", "client_bound ×4", "died during", "resumed 1 times"} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// between returns the text of s from the first start to the next end.
func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		return s[i:]
	}
	return s[i : i+j]
}
