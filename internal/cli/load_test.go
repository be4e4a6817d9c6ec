package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/load"
)

// loadMain runs "stackbench load args..." through Main with a test Env.
func loadMain(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, Dir: dir}
	code = Main(context.Background(), append([]string{"load"}, args...), env)
	return code, out.String(), errOut.String()
}

func okServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestLoadBadInputExits2WithOneMessage(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool.jsonl")
	os.WriteFile(pool, []byte("{\"path\":\"/a\"}\n{\"path\":\"/b\",\"method\":7}\n"), 0o644)
	url := "http://127.0.0.1:1/"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"http://[::1"}, "url"},
		{[]string{"ftp://127.0.0.1/"}, "scheme"},
		{[]string{"-H", "NoColon", url}, "Name: value"},
		{[]string{"-H", "Bad Name: x", url}, "token"},
		{[]string{"-R", "0", url}, "rate must be above 0"},
		{[]string{"-R", "-3", url}, "rate must be above 0"},
		{[]string{"-R", "inf", url}, "rate must be above 0"},
		{[]string{"--body-file", "missing.json", url}, "missing.json"},
		{[]string{"--requests", "missing.jsonl", url}, "missing.jsonl"},
		{[]string{"--requests", "pool.jsonl", url}, "line 2"},
		{[]string{"--expect", "2xx", url}, "--expect"},
		{[]string{"-o", "yaml", url}, "text or json"},
		{[]string{"http://192.0.2.7:8080/"}, "--allow-remote"},
		{[]string{"--events-fd", "987", url}, "not open"},
		{[]string{}, "exactly one URL"},
	}
	for _, tc := range cases {
		code, out, errOut := loadMain(t, dir, tc.args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", tc.args, code, errOut)
			continue
		}
		if lines := strings.Count(strings.TrimSpace(errOut), "\n") + 1; lines != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: stderr %q, want one line mentioning %q", tc.args, errOut, tc.want)
		}
		if out != "" {
			t.Errorf("%q: printed %q to stdout on bad input", tc.args, out)
		}
	}
}

func TestLoadNothingSucceededExits1WithTheSplit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer srv.Close()
	code, out, errOut := loadMain(t, "", "-c", "2", "-d", "1s", srv.URL)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errOut)
	}
	if !strings.Contains(out, "status_500") || !strings.Contains(out, "throughput    0.0 req/s") {
		t.Errorf("output lacks the error split:\n%s", out)
	}
	if !strings.Contains(errOut, "no request succeeded") {
		t.Errorf("stderr %q, want the reason", errOut)
	}

	code, out, _ = loadMain(t, "", "-c", "2", "-d", "1s", "-o", "json", srv.URL)
	var res load.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 {
		t.Fatalf("exit %d, JSON %v:\n%s", code, err, out)
	}
	if res.Errors["status_500"] == 0 || res.Errors["status_500"] != res.Attempts {
		t.Errorf("errors %v, attempts %d: want every attempt a status_500", res.Errors, res.Attempts)
	}
}

func TestLoadJSONAndRequestFlags(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := new(bytes.Buffer)
		b.ReadFrom(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.Header.Get("X-Test")+" "+b.String())
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"name":"x"}`), 0o644)
	code, out, errOut := loadMain(t, dir, srv.URL+"/items", "-c", "1", "-d", "500ms", "-m", "POST",
		"-H", "X-Test: yes", "--body-file", "body.json", "--expect", "201", "--warmup", "200ms", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res load.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != load.SchemaVersion || res.Successes == 0 || res.ErrorCount() != 0 || res.Warmup.Successes == 0 {
		t.Errorf("result %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0] != `POST yes {"name":"x"}` || got[len(got)-1] != got[0] {
		t.Errorf("server saw %q", got[:min(len(got), 3)])
	}
}

// An open loop far above a slow server's capacity: the text says how many
// requests were never sent and what share failed; the JSON carries unsent
// and errors.unfinished.
func TestLoadOverloadedOpenLoopShowsUnsent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
	}))
	defer srv.Close()
	code, out, errOut := loadMain(t, "", srv.URL, "-c", "1", "-R", "200", "-d", "500ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"unsent ", "due by the window's end and never sent", "failures "} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = loadMain(t, "", srv.URL, "-c", "1", "-R", "200", "-d", "500ms", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var keys struct {
		Unsent *int64           `json:"unsent"`
		Errors map[string]int64 `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatal(err)
	}
	if _, ok := keys.Errors["unfinished"]; !ok || keys.Unsent == nil || *keys.Unsent < 50 {
		t.Errorf("JSON unsent %v, errors %v; want unsent (most of the 100 due) and errors.unfinished", keys.Unsent, keys.Errors)
	}
}

// The run protocol starts stackbench load as a subprocess and reads these
// events from an inherited pipe; here the pipe's write end is handed over
// by number the same way.
func TestLoadEventsOnAPipe(t *testing.T) {
	url := okServer(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	fd, err := syscall.Dup(int(pw.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	pw.Close() // the command owns (and closes) its copy
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	code, _, errOut := loadMain(t, "", url, "-c", "2", "-d", "2s", "--warmup", "300ms", "-o", "json", "--events-fd", itoa(fd))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []string
	select {
	case got = <-lines:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream was not closed at the end of the run")
	}
	var events []load.Event
	for _, l := range got {
		var e load.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("event line %q: %v", l, err)
		}
		events = append(events, e)
	}
	kinds := make([]string, len(events))
	for i, e := range events {
		kinds[i] = string(e.Kind)
	}
	if want := "warmup_start,measure_at,measure_start,tick,tick,measure_end"; strings.Join(kinds, ",") != want {
		t.Fatalf("events %v, want %s", kinds, want)
	}
	if events[3].ElapsedSeconds != 1 || events[4].ElapsedSeconds != 2 || events[3].Successes == 0 {
		t.Errorf("ticks %+v %+v", events[3], events[4])
	}
	if events[1].UnixNano != events[2].UnixNano {
		t.Errorf("measure_at announced %d, measure_start came at %d", events[1].UnixNano, events[2].UnixNano)
	}
	window := time.Duration(events[5].UnixNano - events[2].UnixNano)
	warm := time.Duration(events[2].UnixNano - events[0].UnixNano)
	if window < 1990*time.Millisecond || window > 2200*time.Millisecond || warm < 290*time.Millisecond || warm > 500*time.Millisecond {
		t.Errorf("measure_start→measure_end %v (want 2s), warmup_start→measure_start %v (want 300ms)", window, warm)
	}
	if !strings.Contains(got[3], `"elapsed_s":1`) || !strings.HasPrefix(got[2], `{"event":"measure_start","unix_ns":`) {
		t.Errorf("event lines %q", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// STACKBENCH_LOAD_CPUPROFILE makes the load command write its own CPU
// profile, a pprof file of the run (what bench/wire/compare.sh PROFILE=1
// reads); an unwritable path is refused before the run.
func TestLoadWritesItsCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	run := func(path string) (int, string) {
		var out, errOut bytes.Buffer
		env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Dir: dir,
			Getenv: func(name string) string {
				if name == loadProfileEnv {
					return path
				}
				return ""
			}}
		return Main(context.Background(), []string{"load", "-c", "2", "-d", "300ms", okServer(t)}, env), errOut.String()
	}
	if code, stderr := run(prof); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p, err := profile.Parse(f); err != nil || len(p.SampleType) == 0 || p.SampleType[len(p.SampleType)-1].Type != "cpu" {
		t.Errorf("the profile: %v, %+v; want a CPU profile", err, p)
	}
	if code, stderr := run(filepath.Join(dir, "no", "such", "dir", "cpu.pprof")); code == 0 || !strings.Contains(stderr, loadProfileEnv) {
		t.Errorf("an unwritable profile path: exit %d, %s", code, stderr)
	}
}
