package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
)

// gateFlagNames are the flags that judge a run and write CI outputs; they
// do not shape the plan, so a run does not record them for --resume and
// --resume accepts them.
var gateFlagNames = []string{"fail-on", "steps", "metrics"}

// gateFlags are the gate's flags, shared by run and report.
type gateFlags struct {
	failOn, steps, metrics *string
}

func addGateFlags(fs *flag.FlagSet, comparison bool) *gateFlags {
	failOnHelp := "exit 1 when a gated step gets one of these calls: loss, undecided, invalid, gain, same (comma-separated, e.g. loss,undecided)"
	if comparison {
		failOnHelp += "; with two directories, the step of each stack from A to B; exit 3 when the runs' hosts cannot be judged equal"
	}
	return &gateFlags{
		failOn:  fs.String("fail-on", "", failOnHelp),
		steps:   fs.String("steps", "", "gate only these steps, FROM..TO[,FROM..TO…] with the stacks' names (default: every step)"),
		metrics: fs.String("metrics", "", "judge these metrics of each step: throughput, per_cpu (default: throughput; with two directories, both)"),
	}
}

// gateSpec is a parsed gate: what to judge and what fails it.
type gateSpec struct {
	report.GateSpec
}

// active reports whether the command line asked for a gate.
func (g gateSpec) active() bool { return len(g.FailOn) > 0 }

// parse reads the gate's flags; comparison is true for report A B.
func (g *gateFlags) parse(comparison bool) (gateSpec, error) {
	var spec gateSpec
	var err error
	if spec.FailOn, err = parseFailOn(*g.failOn); err != nil {
		return spec, err
	}
	if *g.steps != "" {
		if comparison {
			return spec, usagef("--steps chooses steps between the stacks of one run; a comparison of two runs judges each stack from A to B: drop --steps")
		}
		if spec.Steps, err = report.ParseStepPairs(*g.steps); err != nil {
			return spec, usagef("--steps: %v", err)
		}
	}
	for _, name := range commaList(*g.metrics) {
		m := report.GateMetric(name)
		switch {
		case name == "p99" || name == "p50":
			return spec, usagef("--metrics %s: steps are not called on latency yet (closed-loop latency is mostly the inverse of throughput; latency at a fixed rate is to come); judge throughput or per_cpu, or gate latency with a thresholds: key in the comparison file", name)
		case !slices.Contains(report.GateMetrics, m):
			return spec, usagef("--metrics %s: write throughput, per_cpu or both, comma-separated", name)
		}
		spec.Metrics = append(spec.Metrics, m)
	}
	if len(spec.Metrics) == 0 && comparison {
		spec.Metrics = report.GateMetrics
	}
	if !spec.active() && (*g.steps != "" || *g.metrics != "") {
		return spec, usagef("--steps and --metrics choose what --fail-on judges: add --fail-on, e.g. --fail-on loss")
	}
	return spec, nil
}

// parseFailOn reads --fail-on's list of calls.
func parseFailOn(s string) ([]stats.Call, error) {
	var out []stats.Call
	for _, name := range commaList(s) {
		c := stats.Call(name)
		if !slices.Contains(stats.Calls, c) {
			return nil, usagef("--fail-on %s: write one or more of loss, undecided, invalid, gain, same, comma-separated (e.g. --fail-on loss,undecided)", name)
		}
		out = append(out, c)
	}
	return out, nil
}

// judgeRun is the gate on one run's steps: ExitGateFailed naming each
// failing check with its interval; ExitNotMeasured when a gated step was
// not measured (its cell is insufficient, failed or missing) and invalid
// is not a call the gate fails on; nil when every check passed.
func judgeRun(m *report.Model, spec gateSpec, env Env) error {
	checks, err := report.Judge(m.Steps, spec.GateSpec)
	if err != nil {
		return usagef("--steps: %v", err)
	}
	if len(checks) == 0 {
		return &ExitError{Code: ExitNotMeasured, Msg: "--fail-on: this run has no step to judge (a run of one stack has none); name two or more stacks"}
	}
	return gateVerdict(checks, spec, "", env)
}

// gateVerdict turns judged checks into the command's exit: failures first,
// then checks that could not be judged. what qualifies the steps in the
// messages ("from A to B ").
func gateVerdict(checks []report.GateCheck, spec gateSpec, what string, env Env) error {
	var failed, unmeasured []string
	for _, c := range checks {
		switch {
		case c.Failed:
			failed = append(failed, report.CheckText(c))
		case c.Invalid():
			unmeasured = append(unmeasured, report.CheckText(c))
		}
	}
	if len(failed) > 0 {
		msg := fmt.Sprintf("gate failed: %d of %d check(s) %scalled %s:\n  %s", len(failed), len(checks), what, joinCalls(spec.FailOn), strings.Join(failed, "\n  "))
		if len(unmeasured) > 0 {
			msg += fmt.Sprintf("\nand %d could not be judged:\n  %s", len(unmeasured), strings.Join(unmeasured, "\n  "))
		}
		return &ExitError{Code: ExitGateFailed, Msg: msg}
	}
	if len(unmeasured) > 0 {
		return &ExitError{Code: ExitNotMeasured, Msg: fmt.Sprintf("cannot judge %d of %d check(s) %s(add invalid to --fail-on to fail on them instead):\n  %s", len(unmeasured), len(checks), what, strings.Join(unmeasured, "\n  "))}
	}
	fmt.Fprintf(env.Stderr, "gate passed: %s %sgot none of %s\n", countNoun(len(checks), "check"), what, joinCalls(spec.FailOn))
	return nil
}

func joinCalls(calls []stats.Call) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = string(c)
	}
	return strings.Join(parts, " or ")
}
