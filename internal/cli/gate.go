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
	// thresholds is true when --fail-on names threshold: a threshold
	// judged fail fails the gate (and undecided or invalid ones too when
	// --fail-on names those calls).
	thresholds bool
}

// active reports whether the command line asked for a gate.
func (g gateSpec) active() bool { return len(g.FailOn) > 0 || g.thresholds }

// parse reads the gate's flags; comparison is true for report A B.
func (g *gateFlags) parse(comparison bool) (gateSpec, error) {
	var spec gateSpec
	var err error
	if spec.FailOn, spec.thresholds, err = parseFailOn(*g.failOn); err != nil {
		return spec, err
	}
	if spec.thresholds && comparison {
		return spec, usagef("--fail-on threshold judges one run's thresholds: name one results directory")
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

// parseFailOn reads --fail-on's list of calls, and whether it names
// threshold.
func parseFailOn(s string) ([]stats.Call, bool, error) {
	var out []stats.Call
	thresholds := false
	for _, name := range commaList(s) {
		c := stats.Call(name)
		switch {
		case name == "threshold" || name == "thresholds":
			thresholds = true
		case !slices.Contains(stats.Calls, c):
			return nil, false, usagef("--fail-on %s: write one or more of loss, undecided, invalid, gain, same, threshold, comma-separated (e.g. --fail-on loss,undecided)", name)
		default:
			out = append(out, c)
		}
	}
	return out, thresholds, nil
}

// judgeRun is the gate on one run: its steps' calls (when --fail-on names
// a call) and its thresholds (when it names threshold). ExitGateFailed
// names each failing check with its interval; ExitNotMeasured when a gated
// check could not be measured (a cell insufficient, failed or missing) and
// invalid is not a call the gate fails on; nil when every check passed.
func judgeRun(m *report.Model, spec gateSpec, env Env) error {
	var v verdict
	// A run of one stack has no step: with threshold named, only its
	// thresholds are judged.
	if len(spec.FailOn) > 0 && (len(m.Steps) > 0 || !spec.thresholds) {
		checks, err := report.Judge(m.Steps, spec.GateSpec)
		if err != nil {
			return usagef("--steps: %v", err)
		}
		if len(checks) == 0 {
			return &ExitError{Code: ExitNotMeasured, Msg: "--fail-on: this run has no step to judge (a run of one stack has none); name two or more stacks, or gate thresholds with --fail-on threshold"}
		}
		v.addSteps(checks)
	}
	if spec.thresholds {
		if len(m.Thresholds) == 0 {
			return usagef("--fail-on threshold: the run has no thresholds; add a thresholds: key to the comparison file (docs/ci.md), e.g. thresholds: {p99: 25ms}")
		}
		v.addThresholds(m.Thresholds, spec.FailOn)
	}
	return v.exit(spec, "", env)
}

// verdict collects a gate's checks as lines: those that failed it and
// those that could not be judged.
type verdict struct {
	total              int
	failed, unmeasured []string
}

func (v *verdict) addSteps(checks []report.GateCheck) {
	v.total += len(checks)
	for _, c := range checks {
		switch {
		case c.Failed:
			v.failed = append(v.failed, report.CheckText(c))
		case c.Invalid():
			v.unmeasured = append(v.unmeasured, report.CheckText(c))
		}
	}
}

// addThresholds adds the threshold checks: fail fails the gate, and so do
// undecided and invalid when failOn names them; invalid otherwise cannot
// be judged.
func (v *verdict) addThresholds(ts []report.ThresholdCheck, failOn []stats.Call) {
	v.total += len(ts)
	for _, t := range ts {
		switch {
		case t.Verdict == report.ThresholdFail,
			t.Verdict == report.ThresholdUndecided && slices.Contains(failOn, stats.CallUndecided),
			t.Verdict == report.ThresholdInvalid && slices.Contains(failOn, stats.CallInvalid):
			v.failed = append(v.failed, "threshold "+report.ThresholdText(t))
		case t.Verdict == report.ThresholdInvalid:
			v.unmeasured = append(v.unmeasured, "threshold "+report.ThresholdText(t))
		}
	}
}

// exit turns the verdict into the command's exit: failures first, then
// checks that could not be judged. what qualifies the steps in the
// messages ("from A to B ").
func (v *verdict) exit(spec gateSpec, what string, env Env) error {
	if len(v.failed) > 0 {
		msg := fmt.Sprintf("gate failed: %d of %d check(s) %scalled %s:\n  %s", len(v.failed), v.total, what, failOnText(spec), strings.Join(v.failed, "\n  "))
		if len(v.unmeasured) > 0 {
			msg += fmt.Sprintf("\nand %d could not be judged:\n  %s", len(v.unmeasured), strings.Join(v.unmeasured, "\n  "))
		}
		return &ExitError{Code: ExitGateFailed, Msg: msg}
	}
	if len(v.unmeasured) > 0 {
		return &ExitError{Code: ExitNotMeasured, Msg: fmt.Sprintf("cannot judge %d of %d check(s) %s(add invalid to --fail-on to fail on them instead):\n  %s", len(v.unmeasured), v.total, what, strings.Join(v.unmeasured, "\n  "))}
	}
	fmt.Fprintf(env.Stderr, "gate passed: %s %sgot none of %s\n", countNoun(v.total, "check"), what, failOnText(spec))
	return nil
}

// failOnText is what --fail-on fails on, in words: "loss or undecided",
// "a failed threshold".
func failOnText(spec gateSpec) string {
	parts := make([]string, 0, len(spec.FailOn)+1)
	for _, c := range spec.FailOn {
		parts = append(parts, string(c))
	}
	if spec.thresholds {
		parts = append(parts, "a failed threshold")
	}
	return strings.Join(parts, " or ")
}
