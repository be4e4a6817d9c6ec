package cli

import (
	"errors"
	"github.com/stackbench/stackbench/internal/analysis"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
)

// resultsDir copies the report package's synthetic journal into a fresh
// results directory.
func resultsDir(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "report", "testdata", "run", journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, journal.FileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportWritesEveryFormat(t *testing.T) {
	dir := resultsDir(t)
	code, stdout, stderr := runMain(t, filepath.Dir(dir), nil, "report", filepath.Base(dir))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"report.html", "summary.md", "report.json", "bench.txt"} {
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", name, err)
		}
		if !strings.Contains(stdout, path) {
			t.Errorf("stdout does not list %s:\n%s", path, stdout)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.HasPrefix(string(md), "> **Parity was skipped**") {
		t.Errorf("summary.md does not start with the skipped-parity banner:\n%.200s", md)
	}
}

func TestReportOneFormat(t *testing.T) {
	dir := resultsDir(t)
	if code, _, stderr := runMain(t, dir, nil, "report", dir, "-o", "bench"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d files, want the journal and bench.txt", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, "bench.txt")); err != nil {
		t.Error(err)
	}
}

func TestReportCompare(t *testing.T) {
	a, b := resultsDir(t), resultsDir(t)
	code, stdout, stderr := runMain(t, a, nil, "report", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "# stackbench comparison:") || !strings.Contains(stdout, "| gin | `order` | 100 | invalid |") {
		t.Errorf("comparison:\n%.600s", stdout)
	}
	code, stdout, _ = runMain(t, a, nil, "report", a, b, "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"kind": "compare"`) {
		t.Errorf("exit %d, json:\n%.300s", code, stdout)
	}
}

func TestReportErrors(t *testing.T) {
	dir := resultsDir(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, 2, "name a results directory"},
		{[]string{"report", dir, "-o", "pdf"}, 2, "-o pdf"},
		{[]string{"report", dir, dir, "-o", "html"}, 2, "-o md"},
		{[]string{"report", dir, dir, dir}, 2, "too many arguments"},
		{[]string{"report", t.TempDir()}, 2, "journal"},
		{[]string{"report", dir, "--pricing", filepath.Join(dir, journal.FileName)}, 2, "--pricing"},
		{[]string{"report", dir, dir, "--pricing", "prices.yaml"}, 2, "no cost section"},
	} {
		code, _, stderr := runMain(t, dir, nil, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args[1:], code, stderr, c.code, c.want)
		}
	}
}

// TestReportFailOnTheSameRunTwice: two runs of the same code sharing a
// reference stack (here: the same journal twice) never fail the gate
// with a loss: they pass, or cannot judge the steps whose cells are not
// valid. The runs lack host-speed probes; through the reference that is a
// warning, not a reason to refuse.
func TestReportFailOnTheSameRunTwice(t *testing.T) {
	a, b := resultsDir(t), resultsDir(t)
	code, stdout, stderr := runMain(t, a, nil, "report", a, b, "--fail-on", "loss")
	if code == ExitGateFailed || code == 0 && !strings.HasPrefix(stderr, "gate passed: ") || code != 0 && !strings.Contains(stderr, "cannot judge") {
		t.Errorf("exit %d, stderr %q; want 0, or cannot judge — never a loss", code, stderr)
	}
	if !strings.Contains(stdout, "Compared through the reference stack nethttp") || !strings.Contains(stdout, "no host-speed probe") {
		t.Errorf("the comparison should go through the shared reference and warn of the missing probes:\n%.1500s", stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", a, b, "--fail-on", "worse"}, "--fail-on worse"},
		{[]string{"report", a, b, "--fail-on", "loss", "--steps", "a..b"}, "drop --steps"},
		{[]string{"report", a, "--fail-on", "loss", "--metrics", "p99"}, "--metrics p99: the run has no latency windows, so its steps have no p99 call; add latency: {rate: 50%}"},
		{[]string{"report", a, b, "--fail-on", "loss", "--metrics", "p50"}, "--metrics p50: latency at a fixed rate is called between the stacks of one run"},
		{[]string{"report", a, "--fail-on", "loss", "--metrics", "rps"}, "--metrics rps: write throughput, per_cpu, p50, p99 or cost"},
		{[]string{"report", a, "--steps", "gin..chi"}, "add --fail-on"},
		{[]string{"report", a, "--fail-on", "loss", "--steps", "gin"}, `"gin" is not a step: write FROM..TO`},
		{[]string{"report", a, "--fail-on", "loss", "--steps", "gin..nope"}, "no step gin..nope in this run; its steps are "},
		{[]string{"report", a, b, "--min-effect", "200%"}, "--min-effect"},
	} {
		if code, _, stderr := runMain(t, a, nil, c.args...); code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args[1:], code, stderr)
		}
	}
}

func TestJudgeComparison(t *testing.T) {
	lo, hi := -12.0, -4.0
	loss := analysis.Change{Call: stats.CallLoss, EstimatePct: -8, CILowPct: &lo, CIHighPct: &hi, FromWindows: 5, ToWindows: 5}
	same := analysis.Change{Call: stats.CallSame, EstimatePct: 0.5}
	undecided := analysis.Change{Call: stats.CallUndecided, EstimatePct: 3}
	step := func(cs string, tp, cpu analysis.Change) analysis.Step {
		return analysis.Step{Kind: analysis.StepCompare, From: "api", To: "api", Case: cs, Concurrency: 32, Throughput: tp, PerCPU: cpu}
	}
	c := &report.Comparison{Steps: []analysis.Step{step("user", loss, same), step("health", same, undecided)}}
	gate := func(calls ...stats.Call) gateSpec {
		return gateSpec{GateSpec: report.GateSpec{FailOn: calls, Metrics: report.GateMetrics}}
	}
	var errOut strings.Builder
	env := Env{Stderr: &errOut}

	err := judgeComparison(c, gate(stats.CallLoss), env)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitGateFailed || !strings.Contains(ee.Msg, "api user c=32 throughput: loss -8.0 % (-12.0 … -4.0 %)") || strings.Contains(ee.Msg, "health") {
		t.Errorf("a loss: %v", err)
	}
	if err := judgeComparison(c, gate(stats.CallGain), env); err != nil || !strings.Contains(errOut.String(), "gate passed: 4 checks from A to B got none of gain") {
		t.Errorf("no gain anywhere, yet %v (stderr %q)", err, errOut.String())
	}
	if err := judgeComparison(c, gate(stats.CallLoss, stats.CallUndecided), env); !errors.As(err, &ee) || ee.Code != ExitGateFailed || !strings.Contains(ee.Msg, "2 of 4 check(s)") {
		t.Errorf("loss or undecided: %v", err)
	}
	c.CannotJudge = []string{"the host ran at a different speed"}
	if err := judgeComparison(c, gate(stats.CallLoss), env); !errors.As(err, &ee) || ee.Code != ExitCannotJudge || !strings.Contains(ee.Msg, "cannot judge") {
		t.Errorf("hosts differ: %v", err)
	}
	c.CannotJudge = nil
	c.Steps = append(c.Steps, step("order", analysis.Change{Call: stats.CallInvalid, Reason: "api is insufficient"}, same))
	if err := judgeComparison(c, gate(stats.CallGain), env); !errors.As(err, &ee) || ee.Code != ExitNotMeasured || !strings.Contains(ee.Msg, "api is insufficient") {
		t.Errorf("an invalid step: %v", err)
	}
	if err := judgeComparison(c, gate(stats.CallInvalid), env); !errors.As(err, &ee) || ee.Code != ExitGateFailed || !strings.Contains(ee.Msg, "api order c=32 throughput: invalid: api is insufficient") {
		t.Errorf("an invalid step with --fail-on invalid: %v", err)
	}
}

// TestReportGateWritesNoReport: report DIR --fail-on reads the run and
// judges it; it rewrites no report file, neither when it judges nor when
// it refuses a flag (exit 2), unless -o names a format.
func TestReportGateWritesNoReport(t *testing.T) {
	for _, c := range []struct {
		args  []string
		code  int
		files []string
	}{
		{[]string{"--fail-on", "loss,invalid"}, ExitGateFailed, nil},
		{[]string{"--fail-on", "loss", "--steps", "gin..nope"}, ExitUsage, nil},
		{[]string{"--fail-on", "loss", "--metrics", "p99"}, ExitUsage, nil},
		{[]string{"--fail-on", "loss,invalid", "-o", "md"}, ExitGateFailed, []string{"summary.md"}},
	} {
		dir := resultsDir(t)
		code, _, stderr := runMain(t, dir, nil, append([]string{"report", dir}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d; stderr %s", c.args, code, c.code, stderr)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			if e.Name() != journal.FileName {
				got = append(got, e.Name())
			}
		}
		if strings.Join(got, ",") != strings.Join(c.files, ",") {
			t.Errorf("%v: the gate wrote %v, want %v", c.args, got, c.files)
		}
	}
}

// TestReportCompareNothingInCommon: two runs with no case in common
// cannot be judged, exit 3 as docs/ci.md says, with or without a gate.
func TestReportCompareNothingInCommon(t *testing.T) {
	a, b := resultsDir(t), resultsDir(t)
	data, err := os.ReadFile(filepath.Join(b, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	renamed := string(data)
	for _, name := range []string{"health", "echo", "me", "user", "list", "order", "cpu"} {
		renamed = strings.ReplaceAll(renamed, `"`+name+`"`, `"`+name+`-v2"`)
	}
	if err := os.WriteFile(filepath.Join(b, journal.FileName), []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, gate := range [][]string{nil, {"--fail-on", "loss"}} {
		args := append([]string{"report", a, b}, gate...)
		code, _, stderr := runMain(t, a, nil, args...)
		if code != ExitCannotJudge || !strings.Contains(stderr, "cannot judge: the runs have no case in common") {
			t.Errorf("%v: exit %d, stderr %q; want %d and what the runs lack", gate, code, stderr, ExitCannotJudge)
		}
	}
}

// Repeated runs of each side, A1 A2 -- B1 B2, are compared with the runs
// as the unit; the same code never fails the gate.
func TestReportRunsOfEachSide(t *testing.T) {
	a1, a2, b1, b2 := resultsDir(t), resultsDir(t), resultsDir(t), resultsDir(t)
	code, stdout, stderr := runMain(t, a1, nil, "report", a1, a2, "--", b1, b2, "--fail-on", "loss")
	if code == ExitGateFailed || code == ExitUsage {
		t.Errorf("exit %d, stderr %q; the same code must not fail the gate", code, stderr)
	}
	if !strings.Contains(stdout, "The runs are the unit (2 in A, 2 in B)") {
		t.Errorf("the comparison should take the runs as the unit:\n%.1500s", stdout)
	}
	if code, _, stderr := runMain(t, a1, nil, "report", a1, "--", "--fail-on", "loss"); code != ExitUsage || !strings.Contains(stderr, "name the runs of each side") {
		t.Errorf("no run after --: exit %d, stderr %q", code, stderr)
	}
}

// TestReportTextIsWhatRunPrints: report -o text writes the lines a
// finished run prints (one renderer, report.WriteText) and no file.
func TestReportTextIsWhatRunPrints(t *testing.T) {
	dir := resultsDir(t)
	code, stdout, stderr := runMain(t, filepath.Dir(dir), nil, "report", filepath.Base(dir), "-o", "text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("report -o text wrote report.html")
	}
	var out strings.Builder
	writeRunReport(Env{Stdout: &out, Stderr: &strings.Builder{}}, dir, false)
	run, _, ok := strings.Cut(out.String(), "\nreport: ")
	if !ok || !strings.Contains(stdout, "What each step bought") || stdout != run {
		t.Errorf("report -o text:\n%s\nrun:\n%s", stdout, out.String())
	}
}
