package live

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/run"
)

// fixtureJournal is a synthetic run's journal (plan, environments,
// parity, boot, 175 windows): internal/report's fixture.
const fixtureJournal = "../report/testdata/run/journal.jsonl"

func fixtureLines(t *testing.T) [][]byte {
	t.Helper()
	b, err := os.ReadFile(fixtureJournal)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func start(t *testing.T, opt Options) *Server {
	t.Helper()
	if opt.Poll == 0 {
		opt.Poll = 20 * time.Millisecond
	}
	if opt.LookEvery == 0 {
		opt.LookEvery = time.Nanosecond
	}
	var errs bytes.Buffer
	opt.Errors = &errs
	s, err := Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if errs.Len() > 0 {
			t.Errorf("live server reported: %s", errs.String())
		}
	})
	return s
}

var doneRe = regexp.MustCompile(`data-done="(\d+)" data-planned="(\d+)"`)

func progressIn(t *testing.T, status string) (done, planned int) {
	t.Helper()
	m := doneRe.FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("no progress in the status: %s", status)
	}
	done, _ = strconv.Atoi(m[1])
	planned, _ = strconv.Atoi(m[2])
	return done, planned
}

// TestFollowsAGrowingJournal replays a run's journal into a directory a
// few lines at a time, a torn line included, as a run writes it: the
// stream shows each phase, the progress moving, a row per window try,
// reports whose forest plot gains rows, and, once results.json is newer
// than the journal, the final report and "done".
func TestFollowsAGrowingJournal(t *testing.T) {
	lines := fixtureLines(t)
	dir := t.TempDir()
	path := filepath.Join(dir, journal.FileName)
	// Plan, environment, parity and boot: everything before the first window.
	firstWindow := 0
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"kind":"window"`)) {
			firstWindow = i
			break
		}
	}
	appendFile(t, path, bytes.Join(lines[:firstWindow], nil))
	release := holdLock(t, dir)
	s := start(t, Options{Dir: dir})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	evs := readEvents(t, ctx, strings.Replace(s.URL(), "/?", "/events?", 1))
	st := waitFor(t, evs, 10*time.Second, "status before the windows", func(e event) bool { return e.Name == "status" })
	if done, planned := progressIn(t, st.Data); done != 0 || planned == 0 || !strings.Contains(st.Data, `data-phase="rounds"`) {
		t.Fatalf("before any window: %d of %d, status %s", done, planned, st.Data)
	}

	// Half the windows, the last of them torn in two.
	half := firstWindow + (len(lines)-firstWindow)/2
	appendFile(t, path, bytes.Join(lines[firstWindow:half], nil))
	torn := lines[half]
	appendFile(t, path, torn[:len(torn)/2])
	wantRows := bytes.Count(bytes.Join(lines[firstWindow:half], nil), []byte(`"kind":"window"`))
	var forestRows []int
	rows := 0
	var lastDone int
	deadline := time.After(20 * time.Second)
	for lastDone == 0 || len(forestRows) == 0 || rows < wantRows {
		select {
		case e := <-evs:
			switch e.Name {
			case "window":
				rows++
			case "rows":
				rows += strings.Count(e.Data, "<tr")
			case "status":
				lastDone, _ = progressIn(t, e.Data)
			case "report":
				forestRows = append(forestRows, strings.Count(e.Data, `<line class="ci"`))
			}
		case <-deadline:
			t.Fatalf("after half the windows: %d rows, done %d, forest rows %v", rows, lastDone, forestRows)
		}
	}
	if rows != wantRows {
		t.Errorf("%d window rows, want %d (one per try journaled)", rows, wantRows)
	}
	// The torn line is read once it is whole.
	appendFile(t, path, torn[len(torn)/2:])
	appendFile(t, path, bytes.Join(lines[half+1:], nil))
	waitFor(t, evs, 20*time.Second, "the rest of the windows", func(e event) bool {
		if e.Name == "report" {
			forestRows = append(forestRows, strings.Count(e.Data, `<line class="ci"`))
		}
		if e.Name != "status" {
			return false
		}
		if strings.Contains(e.Data, "journal:") {
			t.Errorf("the status reports journal problems (a line still being written is not one): %s", e.Data)
		}
		d, p := progressIn(t, e.Data)
		return d == p
	})
	// The process that held the directory is gone and did not finish it.
	release()
	waitFor(t, evs, 20*time.Second, "stopped", func(e event) bool { return e.Name == "status" && strings.Contains(e.Data, `data-phase="stopped"`) })
	// The run ends: results.json newer than the journal.
	time.Sleep(20 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, journal.ResultsFile), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	var final string
	waitFor(t, evs, 20*time.Second, "done", func(e event) bool {
		if e.Name == "report" {
			final = e.Data
			forestRows = append(forestRows, strings.Count(e.Data, `<line class="ci"`))
		}
		if e.Name == "status" && strings.Contains(e.Data, `data-phase="finished"`) && final == "" {
			t.Error("finished before the final report")
		}
		return e.Name == "done"
	})
	t.Logf("bounded intervals per look: %v", forestRows)
	if len(forestRows) < 2 || forestRows[0] >= forestRows[len(forestRows)-1] {
		t.Errorf("bounded intervals in the forest plot per look %v: want them to grow as windows land", forestRows)
	}
	if !strings.Contains(final, `<svg class="forest"`) || strings.Contains(final, "<script>") {
		t.Errorf("the final report has no forest plot, or keeps the report's scripts")
	}
}

// holdLock takes the directory's lock as a run does (a flock on .lock,
// which names the holder) and returns its release.
func holdLock(t *testing.T, dir string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := local.TryLock(f); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	fmt.Fprintf(f, "pid %d on %s since %s: stackbench run\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	return func() { f.Close() }
}

// dirState is every file of a directory: name, mode, time, size, hash.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", p, info.Mode(), info.ModTime().UnixNano(), info.Size())
		if !d.IsDir() {
			body, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(body))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWritesNothingToTheDirectory serves a finished run's directory,
// loads the page and follows the stream to its end: every file in the
// directory is byte-identical, with the same times, and no file appeared.
func TestWritesNothingToTheDirectory(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(fixtureJournal)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(dir, journal.FileName), b)
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, journal.ResultsFile), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)
	s := start(t, Options{Dir: dir})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	evs := readEvents(t, ctx, strings.Replace(s.URL(), "/?", "/events?", 1))
	rep := waitFor(t, evs, 20*time.Second, "a report", func(e event) bool { return e.Name == "report" })
	waitFor(t, evs, 20*time.Second, "done", func(e event) bool { return e.Name == "done" })
	time.Sleep(10 * s.opt.Poll) // polls that find nothing new keep the finished status
	resp, err := http.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(page, []byte(`<svg class="forest"`)) || !strings.Contains(rep.Data, `<svg class="forest"`) {
		t.Errorf("a finished run's page does not show its report")
	}
	if !bytes.Contains(page, []byte(`data-phase="finished"`)) || bytes.Contains(page, []byte("no window for")) {
		t.Errorf("a finished run's page, some polls later, does not say finished:\n%.600s", page[bytes.Index(page, []byte(`<div id="status">`)):])
	}
	s.Close()
	if after := dirState(t, dir); after != before {
		t.Errorf("the directory changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestTokenRequired: without the token a request is refused (401), with
// another one too (403), on the page and the event stream alike; the
// token the URL carries opens both.
func TestTokenRequired(t *testing.T) {
	dir := t.TempDir()
	s := start(t, Options{Dir: dir})
	base := strings.SplitN(s.URL(), "?", 2)[0]
	for _, c := range []struct {
		url  string
		want int
	}{
		{base, http.StatusUnauthorized},
		{base + "events", http.StatusUnauthorized},
		{base + "?token=" + strings.Repeat("A", 43), http.StatusForbidden},
		{base + "events?token=wrong", http.StatusForbidden},
		{base + "nothing?" + strings.SplitN(s.URL(), "?", 2)[1], http.StatusNotFound},
		{s.URL(), http.StatusOK},
	} {
		resp, err := http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s: %d, want %d", c.url, resp.StatusCode, c.want)
		}
		if resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: no Referrer-Policy: the token would leak in a referrer", c.url)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, base+"?x=1", nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("with the token as a bearer header: %d", resp.StatusCode)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'nonce-") {
		t.Errorf("page CSP %q: want nothing fetched, only the page's own script", csp)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	evs := readEvents(t, ctx, base+"events?token="+s.token)
	waitFor(t, evs, 5*time.Second, "a status", func(e event) bool { return e.Name == "status" && strings.Contains(e.Data, PhaseStarting) })
}

// TestLockFileIsTheRunsOwn: the lock the page reads is the one a run takes.
func TestLockFileIsTheRunsOwn(t *testing.T) {
	if lockFile != run.LockFile {
		t.Errorf("live reads %q, run locks %q", lockFile, run.LockFile)
	}
}

// TestListensOnLoopbackOnly: an address that is not loopback is refused
// unless remote access is allowed.
func TestListensOnLoopbackOnly(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		want   string // "" for an error
	}{
		{"", false, "127.0.0.1:0"},
		{"127.0.0.1:8090", false, "127.0.0.1:8090"},
		{"localhost:8090", false, "127.0.0.1:8090"},
		{"[::1]:8090", false, "[::1]:8090"},
		{"127.0.0.1", false, "127.0.0.1:0"},
		{"0.0.0.0:8090", false, ""},
		{":8090", false, ""},
		{"192.168.1.10:8090", false, ""},
		{"example.com:8090", false, ""},
		{"0.0.0.0:8090", true, "0.0.0.0:8090"},
		{":8090", true, ":8090"},
		{"127.0.0.1:x:y", false, ""},
	} {
		got, err := listenAddr(c.addr, c.remote)
		if c.want == "" {
			if err == nil {
				t.Errorf("listenAddr(%q, remote %v) = %q, want refused", c.addr, c.remote, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("listenAddr(%q, remote %v) = %q, %v; want %q", c.addr, c.remote, got, err, c.want)
		}
	}
}
