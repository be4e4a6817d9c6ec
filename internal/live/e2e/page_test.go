package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/run"
)

// lockedBuffer collects a process's output while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var pageURL = regexp.MustCompile(`live page: (http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+)`)

func waitURL(t *testing.T, out *lockedBuffer, what string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := pageURL.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("%s printed no live page URL within 30 s:\n%s", what, out.String())
	return ""
}

// pageState is what the test reads of the live page at one moment.
type pageState struct {
	Events    int      `json:"events"`
	Done      bool     `json:"done"`
	Windows   int      `json:"windows"`
	Planned   int      `json:"planned"`
	Phase     string   `json:"phase"`
	Intervals int      `json:"intervals"`
	Rows      int      `json:"rows"`
	Calls     []string `json:"calls"`
	Errors    string   `json:"errors"`
}

const readPage = `(function(){
var d=document.documentElement, p=document.getElementById("progress"), ph=document.querySelector("[data-phase]");
return {events:Number(d.getAttribute("data-events")||0), done:d.getAttribute("data-done")==="1",
windows:p?Number(p.getAttribute("data-done")):-1, planned:p?Number(p.getAttribute("data-planned")):-1,
phase:ph?ph.getAttribute("data-phase"):"",
intervals:document.querySelectorAll("#report svg.forest line.ci").length,
rows:document.querySelectorAll("#windows tr").length,
calls:Array.from(document.querySelectorAll("#report svg.forest g.row")).map(function(g){return g.getAttribute("class")}),
errors:d.getAttribute("data-errors")||""};})()`

// follower reads `report --live`'s event stream: the windows done at
// each status, and whether it saw the run finish.
type follower struct {
	mu       sync.Mutex
	done     []string
	finished bool
	report   bool
}

var statusDone = regexp.MustCompile(`data-done="(\d+)"`)

func (f *follower) read(resp *http.Response) {
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		f.mu.Lock()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case name == "status" && statusDone.MatchString(line):
			n := statusDone.FindStringSubmatch(line)[1]
			if len(f.done) == 0 || f.done[len(f.done)-1] != n {
				f.done = append(f.done, n)
			}
		case name == "status" && strings.Contains(line, `data-phase="finished"`):
			f.finished = true
		case name == "report" && strings.Contains(line, `<svg class="forest"`):
			f.report = true
		}
		f.mu.Unlock()
	}
}

// TestLivePageFollowsARun drives a real run with --live and watches its
// page in headless Chromium: the page receives events while the run goes
// (two screenshots a round apart differ; the progress moves; the forest
// plot gains intervals), shows no console error, and at the end holds the
// final report's calls; a request without the token is refused. Beside
// it, `report --live DIR` in another process follows the same directory
// and sees the rounds land and the run finish. The run's stderr is not a
// terminal: it gets today's lines.
func TestLivePageFollowsARun(t *testing.T) {
	t.Parallel()
	// Eight rounds, 16 windows: the step's interval needs 6 valid pairs
	// and a cell with more than a quarter of its windows flagged is
	// insufficient, so 8 rounds leave room for the 2 client_starved
	// windows a busy CI host gives a cell (6 rounds failed there,
	// 2026-12-07: 2 of 6 flagged, no interval at all).
	const rounds = 8
	const windows = 2 * rounds
	br := startBrowser(t)
	file := comparison(t, rounds)
	out := filepath.Join(t.TempDir(), "results")
	var stderr, stdout lockedBuffer
	cmd := exec.Command(bins.Stackbench, "run", "-f", file, "--out", out, "--skip-parity", "--live")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	url := waitURL(t, &stderr, "stackbench run --live")
	base := strings.SplitN(url, "?", 2)[0]
	for _, c := range []struct {
		url  string
		want int
	}{{base, http.StatusUnauthorized}, {base + "events", http.StatusUnauthorized}, {base + "?token=not-it", http.StatusForbidden}} {
		resp, err := http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s: %d, want %d", c.url, resp.StatusCode, c.want)
		}
	}

	// Another process follows the same directory once the run made it.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(out, journal.FileName)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run wrote no journal within 20 s:\n%s", stderr.String())
		}
	}
	var fstderr lockedBuffer
	fcmd := exec.Command(bins.Stackbench, "report", "--live", out)
	fcmd.Stdout, fcmd.Stderr = io.Discard, &fstderr
	if err := fcmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fcmd.Process.Kill(); fcmd.Wait() })
	furl := waitURL(t, &fstderr, "stackbench report --live")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.Replace(furl, "/?", "/events?", 1), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var fol follower
	go fol.read(resp)

	br.call("Page.navigate", map[string]any{"url": url})
	for loaded, end := false, time.Now().Add(30*time.Second); !loaded; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the live page did not load within 30 s")
		}
		loaded = br.loaded("live")
	}
	var states []pageState
	var shots [][]byte
	var shotAt []int
	deadline := time.Now().Add(2 * time.Minute)
	var runErr error
	ran := false
	for !ran {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not end within 2 minutes:\n%s", stderr.String())
		}
		var st pageState
		br.eval(readPage, &st)
		states = append(states, st)
		// A screenshot once round 1 is in, and one a round (two windows) later.
		if (len(shots) == 0 && st.Windows >= 2 && st.Windows < st.Planned) || (len(shots) == 1 && st.Windows >= shotAt[0]+2) {
			shots, shotAt = append(shots, br.screenshot()), append(shotAt, st.Windows)
		}
		select {
		case runErr = <-exited:
			ran = true
		case <-time.After(150 * time.Millisecond):
		}
	}
	if runErr != nil {
		t.Fatalf("stackbench run: %v\n%s", runErr, stderr.String())
	}
	// The last events were sent before the server stopped; the page keeps them.
	var final pageState
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		br.eval(readPage, &final)
		if final.Done || time.Now().After(end) {
			break
		}
	}

	if !final.Done || final.Phase != "finished" || final.Windows != windows || final.Planned != windows {
		t.Errorf("at the end the page shows %+v; want done, finished, %d of %d windows", final, windows, windows)
	}
	var progress []int
	maxIntervalsBefore := 0
	for _, s := range states {
		if len(progress) == 0 || progress[len(progress)-1] != s.Windows {
			progress = append(progress, s.Windows)
		}
		if s.Windows < s.Planned {
			maxIntervalsBefore = max(maxIntervalsBefore, s.Intervals)
		}
	}
	if len(progress) < 4 || !sort.IntsAreSorted(progress) {
		t.Errorf("the page's windows done over the run: %v; want it to move, in steps, upwards", progress)
	}
	// One window a side has no interval; six valid pairs have one, which
	// the page shows as soon as they are in (during the run, or at its
	// end when flagged windows held it back).
	if !(states[0].Intervals == 0 && final.Intervals > 0) {
		t.Errorf("the forest plot did not gain intervals: %d at first, at most %d during the run, %d at the end; the run said:\n%s", states[0].Intervals, maxIntervalsBefore, final.Intervals, stderr.String())
	}
	if final.Rows != windows {
		t.Errorf("%d window rows on the page, want %d (one per try)", final.Rows, windows)
	}
	if len(shots) != 2 {
		t.Errorf("took %d screenshots (at windows %v), want two a round apart", len(shots), shotAt)
	} else if bytes.Equal(shots[0], shots[1]) {
		t.Errorf("the screenshots at windows %d and %d are identical: the page did not change", shotAt[0], shotAt[1])
	}
	if errs := br.errors(); len(errs) > 0 || final.Errors != "" {
		t.Errorf("errors on the page: %v %s", errs, final.Errors)
	}
	// The page at the end is the report: the same steps, the same calls.
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`<g class="(row call-[a-z]+)"`).FindAllStringSubmatch(string(html), -1) {
		want = append(want, m[1])
	}
	if len(want) == 0 || strings.Join(final.Calls, ",") != strings.Join(want, ",") {
		t.Errorf("the page's calls %v, report.html's %v", final.Calls, want)
	}

	// The follower in another process saw the rounds land, then the end.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		fol.mu.Lock()
		f := fol.finished
		fol.mu.Unlock()
		if f {
			break
		}
	}
	fol.mu.Lock()
	if len(fol.done) < 3 || !fol.finished || !fol.report {
		t.Errorf("report --live saw windows done %v, finished %v, a report %v; want the rounds landing and the finish", fol.done, fol.finished, fol.report)
	}
	fol.mu.Unlock()
	fcmd.Process.Signal(syscall.SIGINT)

	// Not a terminal: today's lines, no status drawn, no run.log.
	log := stderr.String()
	if !strings.Contains(log, fmt.Sprintf("[1/%d] r1/flaky/ok/c2: ", windows)) || strings.Contains(log, "\x1b[") {
		t.Errorf("stderr (not a terminal) lacks today's window lines, or has escape sequences:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(out, run.LogFile)); err == nil {
		t.Errorf("run.log written though stderr is not a terminal")
	}
}
