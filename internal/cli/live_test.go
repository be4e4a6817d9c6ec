package cli

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
)

// syncBuffer is a bytes.Buffer a command writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var liveURL = regexp.MustCompile(`live page: (http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+)`)

// waitLiveURL waits for the command to print its live page's URL.
func waitLiveURL(t *testing.T, stderr *syncBuffer, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if m := liveURL.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no live page URL on stderr within %s:\n%s", d, stderr.String())
	return ""
}

// streamUntil reads the live page's event stream until an event named
// last, and returns the data of every event by name (the latest of each).
func streamUntil(t *testing.T, url, last string, d time.Duration) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.Replace(url, "/?", "/events?", 1), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	name, data := "", []string(nil)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" && name != "":
			got[name] = strings.Join(data, "\n")
			if name == last {
				return got
			}
			name, data = "", nil
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	t.Fatalf("the stream ended (%v) before %q; got %v", sc.Err(), last, keys(got))
	return nil
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestReportLiveShowsAFinishedRun: `report --live DIR` on a finished run
// prints the page's URL and serves the run's report, then "done"; the
// token is required; Ctrl-C ends it; the directory gains no file.
func TestReportLiveShowsAFinishedRun(t *testing.T) {
	dir := resultsDir(t)
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, journal.ResultsFile), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: dir}
	code := make(chan int, 1)
	go func() { code <- Main(ctx, []string{"report", "--live", "127.0.0.1:0", dir}, env) }()
	url := waitLiveURL(t, &stderr, 10*time.Second)
	got := streamUntil(t, url, "done", 30*time.Second)
	if !strings.Contains(got["report"], `<svg class="forest"`) || !strings.Contains(got["status"], `data-phase="finished"`) {
		t.Errorf("a finished run's page: status %.300q, report has a forest plot: %v", got["status"], strings.Contains(got["report"], `<svg class="forest"`))
	}
	resp, err := http.Get(strings.SplitN(url, "?", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", resp.StatusCode)
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 && c != 130 {
			t.Errorf("exit %d after Ctrl-C: %s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("report --live did not end on Ctrl-C")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the directory holds %d files, want the journal and results.json: report --live writes nothing", len(entries))
	}
}

// TestLiveFlagErrors: --live follows one directory and writes nothing;
// an address off loopback needs --allow-remote.
func TestLiveFlagErrors(t *testing.T) {
	dir := resultsDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--live", dir, dir}, "follows one results directory"},
		{[]string{"report", "--live", "-o", "html", dir}, "writes nothing"},
		{[]string{"report", "--allow-remote", dir}, "--allow-remote applies to --live"},
		{[]string{"report", "--live", "0.0.0.0:0", dir}, "--allow-remote"},
		{[]string{"report", "--live", "192.0.2.1:0", dir}, "not a loopback address"},
		{[]string{"report", "--live", filepath.Join(dir, "nothing")}, "no such results directory"},
	} {
		code, _, stderr := runMain(t, dir, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestJoinLiveAddr: `--live ADDR` reads as --live=ADDR; a directory
// after --live stays a directory.
func TestJoinLiveAddr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"--live 127.0.0.1:8090 DIR", "--live=127.0.0.1:8090 DIR"},
		{"--live localhost:0 DIR", "--live=localhost:0 DIR"},
		{"--live [::1]:9 DIR", "--live=[::1]:9 DIR"},
		{"--live DIR", "--live DIR"},
		{"--live results/20260101-120000", "--live results/20260101-120000"},
		{"-f x.yaml --live", "-f x.yaml --live"},
	} {
		if got := strings.Join(joinLiveAddr(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("joinLiveAddr(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
