package cli

import (
	"errors"
	"strings"
	"testing"

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
			[]string{"gate failed: 5 of 14 check(s) called undecided:", "chi → gin user c=10 throughput: undecided +4.0 % (+0.9 … +7.2 %)", "chi → gin cpu c=10 throughput: invalid: gin is failed"}, "nethttp →"},
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
	loss := report.Change{Call: stats.CallLoss, EstimatePct: -8, CILowPct: &lo, CIHighPct: &hi, FromWindows: 5, ToWindows: 5}
	same := report.Change{Call: stats.CallSame, EstimatePct: 0.5}
	step := func(from, to string, tp, cpu report.Change) report.Step {
		return report.Step{Kind: report.StepAdjacent, From: from, To: to, Case: "user", Concurrency: 32, Throughput: tp, PerCPU: cpu}
	}
	m := &report.Model{Steps: []report.Step{step("base", "head", same, loss), step("head", "next", loss, same)}}
	gate := func(steps string, metrics ...report.GateMetric) gateSpec {
		g := gateSpec{GateSpec: report.GateSpec{FailOn: []stats.Call{stats.CallLoss}, Metrics: metrics}}
		g.Steps, _ = report.ParseStepPairs(steps)
		return g
	}
	var errOut strings.Builder
	env := Env{Stderr: &errOut}
	var ee *ExitError
	if err := judgeRun(m, gate("base..head"), env); err != nil || errOut.String() != "gate passed: 1 check got none of loss\n" {
		t.Errorf("throughput of base..head is the same: %v, stderr %q", err, errOut.String())
	}
	if err := judgeRun(m, gate("base..head", report.GatePerCPU), env); !errors.As(err, &ee) || ee.Code != ExitGateFailed ||
		ee.Msg != "gate failed: 1 of 1 check(s) called loss:\n  base → head user c=32 throughput per CPU-second: loss -8.0 % (-12.0 … -4.0 %)" {
		t.Errorf("per CPU-second of base..head is a loss: %v", err)
	}
	if err := judgeRun(m, gate(""), env); !errors.As(err, &ee) || ee.Code != ExitGateFailed || !strings.Contains(ee.Msg, "head → next user c=32 throughput: loss") {
		t.Errorf("every step: %v", err)
	}
	var ue *UsageError
	if err := judgeRun(m, gate("base..next"), env); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "its steps are base..head, head..next") {
		t.Errorf("a step the run lacks: %v", err)
	}
	if err := judgeRun(&report.Model{}, gate(""), env); !errors.As(err, &ee) || ee.Code != ExitNotMeasured || !strings.Contains(ee.Msg, "no step to judge") {
		t.Errorf("a run of one stack: %v", err)
	}
}
