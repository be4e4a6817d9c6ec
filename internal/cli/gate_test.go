package cli

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"github.com/stackbench/stackbench/internal/analysis"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"

	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
)

// report DIR --fail-on gates the calls of one run, on the synthetic journal
// of the report package (three stacks, some cells invalid or failed).
func TestReportGatesOneRun(t *testing.T) {
	dir := resultsDir(t)
	for _, c := range []struct {
		args    []string
		code    int
		want    []string
		notWant string
	}{
		{[]string{"--fail-on", "undecided", "--steps", "chi..gin"}, ExitGateFailed,
			[]string{"gate failed: 12 of 14 check(s) called undecided:", "chi → gin user c=10 throughput: undecided +4.0 % (+0.9 … +7.2 %, 97.1 % interval)", "chi → gin cpu c=10 throughput: invalid: gin is failed"}, "nethttp →"},
		// No loss anywhere, but six steps have an invalid side: the gate
		// cannot say the run passed.
		{[]string{"--fail-on", "loss"}, ExitNotMeasured,
			[]string{"cannot judge 6 of 42 check(s) (add invalid to --fail-on", "nethttp → chi health c=100 throughput: invalid: nethttp is insufficient"}, ""},
		{[]string{"--fail-on", "loss,invalid", "--steps", "nethttp..chi"}, ExitGateFailed,
			[]string{"gate failed: 1 of 14 check(s) called loss or invalid:", "nethttp → chi health c=100 throughput: invalid"}, "chi → gin"},
		{[]string{"--fail-on", "same", "--steps", "nethttp..chi", "--metrics", "per_cpu"}, ExitNotMeasured,
			[]string{"cannot judge 1 of 14 check(s)", "nethttp → chi health c=100 throughput per CPU-second: invalid"}, "c=100 throughput: invalid"},
	} {
		args := append([]string{"report", dir, "-o", "json"}, c.args...)
		code, _, stderr := runMain(t, dir, nil, args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", c.args, code, c.code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
		if c.notWant != "" && strings.Contains(stderr, c.notWant) {
			t.Errorf("%v: stderr holds %q:\n%s", c.args, c.notWant, stderr)
		}
	}
}

func TestJudgeRun(t *testing.T) {
	lo, hi := -12.0, -4.0
	loss := analysis.Change{Call: stats.CallLoss, EstimatePct: -8, CILowPct: &lo, CIHighPct: &hi, FromWindows: 5, ToWindows: 5}
	same := analysis.Change{Call: stats.CallSame, EstimatePct: 0.5}
	step := func(from, to string, tp, cpu analysis.Change) analysis.Step {
		return analysis.Step{Kind: analysis.StepAdjacent, From: from, To: to, Case: "user", Concurrency: 32, Throughput: tp, PerCPU: cpu}
	}
	m := &report.Model{Steps: []analysis.Step{step("base", "head", same, loss), step("head", "next", loss, same)}}
	gate := func(steps string, metrics ...report.GateMetric) gateSpec {
		g := gateSpec{GateSpec: report.GateSpec{FailOn: []stats.Call{stats.CallLoss}, Metrics: metrics}}
		g.Steps, _ = report.ParseStepPairs(steps)
		return g
	}
	var errOut strings.Builder
	env := Env{Stderr: &errOut}
	var ee *ExitError
	if err := judgeRun(m, gate("base..head"), "", env); err != nil || errOut.String() != "gate passed: 1 check got none of loss\n" {
		t.Errorf("throughput of base..head is the same: %v, stderr %q", err, errOut.String())
	}
	if err := judgeRun(m, gate("base..head", report.GatePerCPU), "", env); !errors.As(err, &ee) || ee.Code != ExitGateFailed ||
		ee.Msg != "gate failed: 1 of 1 check(s) called loss:\n  base → head user c=32 throughput per CPU-second: loss -8.0 % (-12.0 … -4.0 %)" {
		t.Errorf("per CPU-second of base..head is a loss: %v", err)
	}
	if err := judgeRun(m, gate(""), "", env); !errors.As(err, &ee) || ee.Code != ExitGateFailed || !strings.Contains(ee.Msg, "head → next user c=32 throughput: loss") {
		t.Errorf("every step: %v", err)
	}
	var ue *UsageError
	if err := judgeRun(m, gate("base..next"), "", env); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "its steps are base..head, head..next") {
		t.Errorf("a step the run lacks: %v", err)
	}
	if err := judgeRun(&report.Model{}, gate(""), "", env); !errors.As(err, &ee) || ee.Code != ExitNotMeasured || !strings.Contains(ee.Msg, "no step to judge") {
		t.Errorf("a run of one stack: %v", err)
	}
}

// --metrics p99 judges the steps' latency calls at a fixed rate; a run
// without latency windows is a usage error that says to add latency:.
func TestJudgeRunLatency(t *testing.T) {
	lo, hi := 18.0, 41.0
	rise := analysis.Change{Call: stats.CallLoss, EstimatePct: 29, CILowPct: &lo, CIHighPct: &hi, FromWindows: 5, ToWindows: 5}
	same := analysis.Change{Call: stats.CallSame, EstimatePct: 0.5}
	step := analysis.Step{Kind: analysis.StepAdjacent, From: "base", To: "head", Case: "user", Concurrency: 32, Throughput: same, PerCPU: same, P50: &same, P99: &rise}
	m := &report.Model{Header: analysis.Header{Latency: &analysis.LatencyInfo{Rate: "50%"}}, Steps: []analysis.Step{step}}
	spec := func(metrics ...report.GateMetric) gateSpec {
		return gateSpec{GateSpec: report.GateSpec{FailOn: []stats.Call{stats.CallLoss}, Metrics: metrics}}
	}
	var errOut strings.Builder
	env := Env{Stderr: &errOut}
	var ee *ExitError
	if err := judgeRun(m, spec(report.GateP99), "", env); !errors.As(err, &ee) || ee.Code != ExitGateFailed ||
		ee.Msg != "gate failed: 1 of 1 check(s) called loss:\n  base → head user c=32 p99 latency at a fixed rate: loss +29.0 % (+18.0 … +41.0 %)" {
		t.Errorf("a p99 that rose is a loss: %v", err)
	}
	errOut.Reset()
	if err := judgeRun(m, spec(report.GateP50), "", env); err != nil || !strings.HasPrefix(errOut.String(), "gate passed: 1 check") {
		t.Errorf("p50 is the same: %v, stderr %q", err, errOut.String())
	}
	var ue *UsageError
	m.Header.Latency = nil
	if err := judgeRun(m, spec(report.GateP99), "", env); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "add latency: {rate: 50%}") {
		t.Errorf("a run without latency windows: %v", err)
	}
	g, err := (&gateFlags{failOn: ptr("loss"), steps: ptr(""), metrics: ptr("p50,p99"), junit: ptr(""), history: ptr("")}).parse(false)
	if err != nil || len(g.Metrics) != 2 || g.Metrics[0] != report.GateP50 || g.Metrics[1] != report.GateP99 {
		t.Errorf("--metrics p50,p99: %+v, %v", g.Metrics, err)
	}
}

func ptr(s string) *string { return &s }

// A run that calls p99 alone (protocol calls: [p99]) gates p99 by default,
// and refuses to gate a metric it only shows.
func TestJudgeRunGatesWhatTheRunCalls(t *testing.T) {
	lo, hi := 18.0, 41.0
	rise := analysis.Change{Call: stats.CallLoss, EstimatePct: 29, CILowPct: &lo, CIHighPct: &hi, FromWindows: 5, ToWindows: 5}
	shown := analysis.Change{Call: stats.CallNotCalled, EstimatePct: -12, CILowPct: &lo, CIHighPct: &hi}
	step := analysis.Step{Kind: analysis.StepAdjacent, From: "base", To: "head", Case: "user", Concurrency: 32, Throughput: shown, PerCPU: shown, P50: &shown, P99: &rise}
	m := &report.Model{Header: analysis.Header{Latency: &analysis.LatencyInfo{Rate: "50%"}, Calls: []string{"p99"}}, Steps: []analysis.Step{step}}
	spec := func(metrics ...report.GateMetric) gateSpec {
		return gateSpec{GateSpec: report.GateSpec{FailOn: []stats.Call{stats.CallLoss}, Metrics: metrics}}
	}
	var errOut strings.Builder
	env := Env{Stderr: &errOut}
	var ee *ExitError
	if err := judgeRun(m, spec(), "", env); !errors.As(err, &ee) || ee.Code != ExitGateFailed || !strings.Contains(ee.Msg, "p99 latency at a fixed rate: loss +29.0 %") {
		t.Errorf("the default gate judges the headline, p99: %v", err)
	}
	var ue *UsageError
	if err := judgeRun(m, spec(report.GateThroughput), "", env); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "this run does not call throughput (protocol calls: [p99])") {
		t.Errorf("gating throughput the run does not call: %v", err)
	}
	if _, err := (&gateFlags{failOn: ptr("not called"), steps: ptr(""), metrics: ptr(""), junit: ptr(""), history: ptr("")}).parse(false); err == nil {
		t.Error("--fail-on 'not called' was taken; it is not a call")
	}
}

// stackbench plan shows the latency windows of --latency-rate; a run asked
// to gate p99 without them stops before it measures anything, saying to
// add latency:.
func TestLatencyOnTheCommandLine(t *testing.T) {
	work := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n  - {name: b, dir: apps/b, start: ./server}\n")
	code, stdout, stderr := runMain(t, work, nil, "plan", "-f", "stackbench.yaml", "--rounds", "4", "--latency-rate", "50%")
	if code != 0 || !strings.Contains(stdout, "an open-loop window at 50% of the slowest stack's closed-loop median") || !strings.Contains(stdout, "latency windows)") {
		t.Errorf("plan --latency-rate 50%%: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runMain(t, work, nil, "plan", "-f", "stackbench.yaml", "--latency-rate", "fast"); code != ExitUsage || !strings.Contains(stderr, `--latency-rate "fast"`) {
		t.Errorf("--latency-rate fast: exit %d, %q", code, stderr)
	}
	code, _, stderr = runMain(t, work, nil, "run", "-f", "stackbench.yaml", "--rounds", "3", "--fail-on", "loss", "--metrics", "p99", "--out", filepath.Join(t.TempDir(), "r"))
	if code != ExitUsage || !strings.Contains(stderr, "add latency: {rate: 50%}") {
		t.Errorf("run --metrics p99 without latency: exit %d, %q", code, stderr)
	}
}

// Under GitHub Actions, report DIR --fail-on prints an ::error line per
// failing check and appends the job summary; --junit and --history write
// their files whatever the verdict.
func TestReportCIOutputs(t *testing.T) {
	dir := resultsDir(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	getenv := func(k string) string {
		return map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}[k]
	}
	code, stdout, stderr := runMain(t, dir, getenv, "report", dir, "-o", "json", "--fail-on", "undecided", "--steps", "chi..gin",
		"--junit", "junit.xml", "--history", "history.json")
	if code != ExitGateFailed {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	// A workflow command escapes % as %25.
	if want := "::error title=stackbench undecided::chi → gin user c=10 throughput: undecided +4.0 %25 (+0.9 … +7.2 %25, 97.1 %25 interval)"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if n := strings.Count(stdout, "::error "); n != 12 {
		t.Errorf("%d ::error lines, want 12:\n%s", n, stdout)
	}
	if !strings.Contains(stdout, "::warning title=stackbench not measured::chi → gin order c=100 throughput: invalid: gin is invalid") {
		t.Errorf("stdout lacks the warning for the invalid step:\n%s", stdout)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## stackbench run 20261129-184500\n\n**Gate failed**: 12 of 14 checks failed.\n\n> Decided: ", "| chi → gin | user | 10 | throughput | undecided ❌ | +4.0 % (+0.9 … +7.2 %, 97.1 % interval) |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("job summary lacks %q:\n%s", want, md)
		}
	}

	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Classname string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &junit); err != nil {
		t.Fatalf("junit.xml: %v\n%s", err, data)
	}
	if junit.Tests != 14 || junit.Failures != 12 || junit.Errors != 2 || len(junit.Suites) != 1 {
		t.Errorf("junit: %d tests, %d failures, %d errors, %d suites; want 14, 12, 2, 1", junit.Tests, junit.Failures, junit.Errors, len(junit.Suites))
	}
	found := false
	for _, c := range junit.Suites[0].Cases {
		if c.Classname == "stackbench.chi..gin" && c.Name == "user c=10 throughput" {
			found = c.Failure != nil && c.Failure.Type == "undecided" && strings.Contains(c.Failure.Message, "(+0.9 … +7.2 %, 97.1 % interval)")
		}
	}
	if !found {
		t.Errorf("junit lacks the failing case chi..gin user c=10 throughput with its interval:\n%s", data)
	}

	var bigger, smaller []report.HistoryEntry
	for path, into := range map[string]*[]report.HistoryEntry{"history.json": &bigger, "history-smaller.json": &smaller} {
		data, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if len(bigger) == 0 || bigger[0].Unit != "req/s" || !strings.HasSuffix(bigger[0].Name, " throughput") || bigger[0].Value <= 0 {
		t.Errorf("history: %+v", bigger)
	}
	if len(smaller) == 0 || smaller[1].Unit != "ms" || !strings.HasSuffix(smaller[1].Name, " p99") || smaller[1].Value <= 0 {
		t.Errorf("history, smaller is better: %+v", smaller)
	}
}

// The gate's flags are this command line's: a run does not record them,
// and --resume takes them.
func TestResumeTakesTheGate(t *testing.T) {
	work := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n  - {name: b, dir: apps/b, start: ./server}\n")
	ra, err := parseRunArgs([]string{"-f", "stackbench.yaml", "--rounds", "3", "--fail-on", "loss", "--steps", "a..b", "--junit", "j.xml"}, Env{Dir: work})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ra.recorded, " "); strings.Contains(got, "fail-on") || strings.Contains(got, "junit") || !strings.Contains(got, "--rounds=3") {
		t.Errorf("recorded %q: want the protocol's flags and not the gate's", got)
	}
	ra, err = parseRunArgs([]string{"--resume", "r", "--fail-on", "loss,undecided", "--history", "h.json"}, Env{Dir: work})
	if err != nil || len(ra.gate.FailOn) != 2 || ra.gate.history != "h.json" {
		t.Errorf("--resume with the gate's flags: %+v, %v", ra.gate, err)
	}
}

func TestResumeKeepsTheCommandLinesGate(t *testing.T) {
	dir := resultsDir(t)
	// The synthetic journal records the arguments of an older format.
	path := filepath.Join(dir, journal.FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = regexp.MustCompile(`"args":\[[^]]*\]`).ReplaceAll(data, []byte(`"args":["-f","stackbench.yaml","--rounds=4"]`))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ra, err := resumeArgs([]string{"--resume", dir, "--fail-on", "loss", "--junit", "j.xml"}, Env{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ra.resume != dir || len(ra.gate.FailOn) != 1 || ra.gate.FailOn[0] != stats.CallLoss || ra.gate.junit != "j.xml" {
		t.Errorf("resumed with %+v", ra)
	}
}

// A results directory is data: the comparison file its journal names
// runs on a resume only when it is the one a plain run here reads, or the
// user names it; the known_hosts file is the command line's, never the
// journal's.
func TestResumeTrustsOnlyTheFileTheUserNames(t *testing.T) {
	dir := resultsDir(t)
	path := filepath.Join(dir, journal.FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = regexp.MustCompile(`"args":\[[^]]*\]`).ReplaceAll(data, []byte(`"args":["-f","/elsewhere/evil.yaml","--known-hosts=/elsewhere/keys"]`))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = resumeArgs([]string{"--resume", dir}, Env{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "name the file yourself, stackbench run --resume "+dir+" -f /elsewhere/evil.yaml") {
		t.Errorf("resume of a run with another file: %v", err)
	}
	_, err = resumeArgs([]string{"--resume", dir, "-f", "mine.yaml"}, Env{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "was started with -f /elsewhere/evil.yaml, not "+filepath.Join(dir, "mine.yaml")) {
		t.Errorf("resume naming another file: %v", err)
	}
	ra, err := resumeArgs([]string{"--resume", dir, "-f", "/elsewhere/evil.yaml"}, Env{Dir: dir})
	if err != nil || ra.file != "/elsewhere/evil.yaml" || ra.knownHosts != "" {
		t.Errorf("resume naming the run's own file: %+v, %v; want that file and no known_hosts from the journal", ra, err)
	}
}
