package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runMain runs stackbench with args in dir and returns exit code, stdout and stderr.
func runMain(t *testing.T, dir string, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	env := Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: getenv, Dir: dir}
	code := Main(context.Background(), args, env)
	return code, stdout.String(), stderr.String()
}

// writeComparison makes a directory holding stackbench.yaml and the stack
// directories apps/a and apps/b.
func writeComparison(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"apps/a", "apps/b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "stackbench.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const twoStacks = `database: ${BENCH_DB}
stacks:
  - name: nethttp-pgx
    dir: apps/a
    build: go build -o bin/server .
    start: ./bin/server
  - name: gin
    dir: apps/b
    start: ./bin/server
`

func benchDB(k string) string {
	if k == "BENCH_DB" {
		return "postgres://bench:hunter2@127.0.0.1:5432/bench"
	}
	return ""
}

func TestPlanShowsResolvedProtocol(t *testing.T) {
	dir := writeComparison(t, twoStacks)
	code, out, errOut := runMain(t, dir, benchDB, "plan", "--profile", "quick", "--window", "2s", "--cases", "user,health")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"is valid.",
		"profile      quick",
		"cases        user, health",
		"concurrency  32",
		"warm-up until steady, 500ms–3s (JIT runtimes 2s–8s), window 2s, timeout 1m0s",
		"rounds       auto: 4 to 16, a fresh process per round",
		"database: postgres://bench:xxxxx@127.0.0.1:5432/bench",
		"1. nethttp-pgx  apps/a  build: go build -o bin/server .  start: ./bin/server",
		"2. gin          apps/b  build: -",
		"16 windows in 8 server processes",
		"fingerprint sha256:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Error("the database password is printed")
	}
}

func TestPlanWindowsAndJSON(t *testing.T) {
	dir := writeComparison(t, twoStacks)
	code, out, errOut := runMain(t, dir, benchDB, "plan", "--windows", "--concurrency", "10,100", "--rounds", "1", "--cases", "order", "--stacks", "gin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "     1 *+ r1/gin/order/c10\n     2  + r1/gin/order/c100\n") {
		t.Errorf("window list:\n%s", out)
	}
	code, out, errOut = runMain(t, dir, benchDB, "plan", "-o", "json", "--profile", "full")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Protocol struct {
			Concurrency []int `json:"concurrency"`
			BootStarts  int   `json:"boot_starts"`
		} `json:"protocol"`
		Windows     []struct{ Key string } `json:"windows"`
		Fingerprint string                 `json:"fingerprint"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(p.Protocol.Concurrency) != 3 || p.Protocol.BootStarts != 30 || len(p.Windows) != 3*2*7*5 || p.Fingerprint == "" {
		t.Errorf("json plan: %+v", p.Protocol)
	}
	if strings.Contains(out, "hunter2") {
		t.Error("the database password is in the JSON plan")
	}
}

func TestPlanReportsEveryProblem(t *testing.T) {
	dir := writeComparison(t, "profile: fast\nstacks:\n  - name: a\n    dir: apps/zz\n    start: ./s\n")
	code, _, errOut := runMain(t, dir, nil, "plan")
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, want := range []string{"2 problems:", "stackbench.yaml:1:10: unknown profile \"fast\"", "stackbench.yaml:4:10: dir \"apps/zz\" does not exist"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestPlanBadOverrides(t *testing.T) {
	dir := writeComparison(t, twoStacks)
	for _, args := range [][]string{
		{"--stacks", "gni"},
		{"--concurrency", "10,x"},
		{"--concurrency", "0"},
		{"--window", "0s"},
		{"--rounds", "0"},
		{"--gate", "maybe"},
		{"-o", "yaml"},
		{"extra"},
	} {
		code, _, errOut := runMain(t, dir, benchDB, append([]string{"plan"}, args...)...)
		if code != 2 || errOut == "" {
			t.Errorf("plan %v: exit %d, stderr %q", args, code, errOut)
		}
	}
	_, _, errOut := runMain(t, dir, benchDB, "plan", "--stacks", "gni")
	if !strings.Contains(errOut, `--stacks: unknown stack "gni"; did you mean "gin"?`) {
		t.Errorf("stderr %q", errOut)
	}
}

func TestPlanMissingFile(t *testing.T) {
	code, _, errOut := runMain(t, t.TempDir(), nil, "plan")
	if code != 2 || !strings.Contains(errOut, "stackbench.yaml not found; run 'stackbench init'") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runMain(t, t.TempDir(), nil, "plan", "-f", "other.yaml")
	if code != 2 || !strings.Contains(errOut, "other.yaml not found") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestPlanWarnings(t *testing.T) {
	dir := writeComparison(t, "workload: micro\ndatabase: postgres://x@127.0.0.1/db\nstacks:\n  - {name: a, dir: apps/a, start: ./s}\n")
	code, out, errOut := runMain(t, dir, nil, "plan")
	if code != 0 || !strings.Contains(errOut, "warning: ") || !strings.Contains(errOut, ":2:11: workload micro uses no database") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "database: none needed") {
		t.Errorf("output:\n%s", out)
	}
}

func TestPlanSaysWhatFewRoundsCannotTell(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n")
	for _, c := range []struct{ layout, rounds, want string }{
		{"grouped", "1", "rounds       1, a fresh process per round (with 1 window a side no step's 95% interval is finite"},
		{"grouped", "3", "rounds       3, a fresh process per round (with 3 windows a side no step's 95% interval is finite, so no step can be a gain or a loss, only same (its 90% interval is finite); 4 or more can decide a change)\n"},
		{"grouped", "4", "rounds       4, a fresh process per round\n"},
		{"interleaved", "5", "rounds       5, a fresh process per round (with 5 pairs of windows (interleaved rounds compare round by round) no step's 95% interval is finite, so no step can be a gain or a loss, only same (its 90% interval is finite); 6 or more can decide a change)\n"},
		{"interleaved", "6", "rounds       6, a fresh process per round\n"},
	} {
		code, out, errOut := runMain(t, dir, nil, "plan", "--rounds", c.rounds, "--layout", c.layout)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("--rounds %s --layout %s: code %d, stderr %q, output lacks %q:\n%s", c.rounds, c.layout, code, errOut, c.want, out)
		}
	}
}

func TestPlanDrawsTheStepTree(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n  - {name: b, dir: apps/a, start: ./server}\n  - {name: c, from: a, dir: apps/a, start: ./server}\n")
	code, out, errOut := runMain(t, dir, nil, "plan")
	want := "  a\n  ├─ b\n  └─ c\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("code %d, stderr %q; the tree %q is not in:\n%s", code, errOut, want, out)
	}
}

// TestPlanWarnsWhenTheBudgetCannotDecide: an adaptive plan whose budget
// affords fewer rounds than its first decidable look says so, and what
// budget would do.
func TestPlanWarnsWhenTheBudgetCannotDecide(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nprofile: quick\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n  - {name: b, dir: apps/a, start: ./server}\n")
	code, out, errOut := runMain(t, dir, nil, "plan", "--budget", "1m", "--window", "10s")
	if code != 0 || !strings.Contains(errOut, "warning: the budget of 1m0s affords") || !strings.Contains(errOut, "every change would be undecided; give --budget") ||
		!strings.Contains(out, "looks        none can decide a step") {
		t.Errorf("code %d, stderr %q:\n%s", code, errOut, out)
	}
	code, out, errOut = runMain(t, dir, nil, "plan")
	if code != 0 || strings.Contains(errOut, "undecided") || !strings.Contains(out, "looks        after rounds 10 (α=0.01), 16 (α=0.04): the last keeps 80% of α=0.05") {
		t.Errorf("quick's own budget: code %d, stderr %q:\n%s", code, errOut, out)
	}
}

func TestPlanShowsThresholds(t *testing.T) {
	dir := writeComparison(t, "thresholds: {p99: 25ms, error_rate: 0.1%, cases: {order: {throughput: 500}}}\n"+twoStacks)
	code, out, errOut := runMain(t, dir, benchDB, "plan", "--cases", "user,order")
	for _, want := range []string{"\nthresholds, per stack and concurrency (gate them with --fail-on threshold):\n",
		"  user: p99 ≤ 25ms, error rate ≤ 0.1 %\n", "  order: p99 ≤ 25ms, error rate ≤ 0.1 %, throughput ≥ 500 req/s\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, plan lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
}

// TestPlanWarnsOfShortWindowsOnYourOwnApp: quick's 1 s windows on the
// user's own workload come with a warning naming the flag; the built-in
// workload's, or longer windows, with none.
func TestPlanWarnsOfShortWindowsOnYourOwnApp(t *testing.T) {
	own := "workload:\n  name: albums\n  health: /\n  cases: [{name: home, path: /}]\nprofile: quick\nstacks:\n  - {name: a, dir: apps/a, start: ./a}\n"
	dir := writeComparison(t, own)
	code, _, errOut := runMain(t, dir, nil, "plan")
	if code != ExitOK || !strings.Contains(errOut, "warning: windows of 1s (profile quick): a route of albums whose p99") || !strings.Contains(errOut, "--window 10s") {
		t.Errorf("exit %d, stderr %q; want the short-window warning", code, errOut)
	}
	if _, _, errOut := runMain(t, dir, nil, "plan", "--window", "10s"); strings.Contains(errOut, "windows of") {
		t.Errorf("a 10 s window still warned: %q", errOut)
	}
	builtin := writeComparison(t, "workload: micro\nprofile: quick\nstacks:\n  - {name: a, dir: apps/a, start: ./a}\n")
	if _, _, errOut := runMain(t, builtin, nil, "plan"); strings.Contains(errOut, "windows of") {
		t.Errorf("the built-in workload warned: %q", errOut)
	}
}

// Issue 31, item 4: a fixed number of rounds too few for any call of the
// run's family to be selected is warned of, for every profile, with the
// rounds that would allow one: 5 rounds reach p = 2/32 at best, and with
// two stacks on one case at two concurrencies the family has 4 calls
// (threshold 0.0125); 7 rounds reach 2/128 > 0.0125 too, 8 reach 2/256.
func TestPlanWarnsWhenNoCallCanBeSelected(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n  - {name: b, dir: apps/a, start: ./server}\n")
	code, out, errOut := runMain(t, dir, nil, "plan", "--rounds", "5", "--layout", "interleaved", "--cases", "get")
	if code != 0 || !strings.Contains(errOut, "with 5 rounds (paired steps) can call no lone gain or loss") || !strings.Contains(errOut, "none can be called at all") || !strings.Contains(errOut, "8 rounds would allow one (--rounds 8)") {
		t.Errorf("5 rounds, a family of 4: code %d, stderr %q\n%s", code, errOut, out)
	}
	code, _, errOut = runMain(t, dir, nil, "plan", "--rounds", "8", "--layout", "interleaved", "--cases", "get")
	if code != 0 || strings.Contains(errOut, "can call no lone gain or loss") {
		t.Errorf("8 rounds: code %d, stderr %q", code, errOut)
	}
}

func TestPlanShowsEachStacksWire(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n  - {name: b, dir: apps/a, start: ./server, protocol: h2, streams: 8}\n")
	code, out, errOut := runMain(t, dir, nil, "plan")
	if code != 0 || !strings.Contains(out, "start: ./server  wire: h2 over TLS, 8 streams a connection\n") || strings.Contains(out, "wire: http1") {
		t.Errorf("code %d, stderr %q, output:\n%s", code, errOut, out)
	}
}
