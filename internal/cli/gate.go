package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
)

// gateFlagNames are the flags that judge a run and write CI outputs; they
// do not shape the plan, so a run does not record them for --resume and
// --resume accepts them.
var gateFlagNames = []string{"fail-on", "steps", "metrics", "junit", "history"}

// gateFlags are the gate's flags, shared by run and report.
type gateFlags struct {
	failOn, steps, metrics, junit, history *string
}

func addGateFlags(fs *flag.FlagSet, comparison bool) *gateFlags {
	failOnHelp := "exit 1 when a gated step gets one of these calls: loss, undecided, invalid, gain, same (comma-separated, e.g. loss,undecided)"
	if comparison {
		failOnHelp += "; with two directories, the step of each stack from A to B; exit 3 when the runs' hosts cannot be judged equal"
	}
	return &gateFlags{
		failOn:  fs.String("fail-on", "", failOnHelp),
		steps:   fs.String("steps", "", "gate only these steps, FROM..TO[,FROM..TO…] with the stacks' names (default: every step)"),
		metrics: fs.String("metrics", "", "judge these metrics of each step: throughput, per_cpu, p50, p99, cost (the last three at a fixed rate: the run needs latency:) (default: the run's headline, the first metric it calls, throughput unless calls: says otherwise; with two directories, throughput and per_cpu)"),
		junit:   fs.String("junit", "", "write the gate's checks as JUnit XML to this file: one test case per step × case × metric and per threshold"),
		history: fs.String("history", "", "write the run's figures to this file in github-action-benchmark's customBiggerIsBetter JSON (throughput), and the latencies beside it (FILE-smaller.json, customSmallerIsBetter)"),
	}
}

// gateSpec is a parsed gate: what to judge and what fails it.
type gateSpec struct {
	report.GateSpec
	// thresholds is true when --fail-on names threshold: a threshold
	// judged fail fails the gate (and undecided or invalid ones too when
	// --fail-on names those calls).
	thresholds bool
	// junit and history are the files of --junit and --history
	// (relative to the working directory), "" when not asked for.
	junit, history string
}

// needsLatency says why the gate cannot judge a run without latency
// windows ("" when it can): it names p50 or p99.
func (g gateSpec) needsLatency(hasLatency bool) error {
	if hasLatency {
		return nil
	}
	for _, m := range g.Metrics {
		if m.Latency() {
			return usagef("--metrics %s: the run has no latency windows, so its steps have no %s call; add latency: {rate: 50%%} to the comparison file's protocol (or --latency-rate 50%%) and run again (docs/ci.md)", m, m)
		}
	}
	return nil
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
		case m.Latency() && m != report.GateCost && comparison:
			return spec, usagef("--metrics %s: latency at a fixed rate is called between the stacks of one run, not from run A to run B; put both versions in one run with latency: {rate: 50%%} (cost is called across runs: --metrics cost)", name)
		case !slices.Contains(report.GateMetrics, m) && !m.Latency():
			return spec, usagef("--metrics %s: write throughput, per_cpu, p50, p99 or cost, comma-separated", name)
		}
		spec.Metrics = append(spec.Metrics, m)
	}
	if len(spec.Metrics) == 0 && comparison {
		spec.Metrics = report.GateMetrics
	}
	if !spec.active() && (*g.steps != "" || *g.metrics != "") {
		return spec, usagef("--steps and --metrics choose what --fail-on judges: add --fail-on, e.g. --fail-on loss")
	}
	if comparison && (*g.junit != "" || *g.history != "") {
		return spec, usagef("--junit and --history write one run's checks and figures: name one results directory")
	}
	spec.junit, spec.history = *g.junit, *g.history
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
		case !slices.Contains(stats.Calls, c) || c == stats.CallNotCalled:
			return nil, false, usagef("--fail-on %s: write one or more of loss, undecided, invalid, gain, same, threshold, comma-separated (e.g. --fail-on loss,undecided)", name)
		default:
			out = append(out, c)
		}
	}
	return out, thresholds, nil
}

// judgeRun is the gate on one run: its steps' calls (when --fail-on names
// a call) and its thresholds (when it names threshold). It writes the CI
// outputs asked for (--junit, --history, and GitHub's annotations and job
// summary under GitHub Actions), then returns ExitGateFailed naming each
// failing check with its interval; ExitNotMeasured when a gated check
// could not be measured (a cell insufficient, failed or missing) and
// invalid is not a call the gate fails on; nil when every check passed.
func judgeRun(m *report.Model, spec gateSpec, dir string, env Env) error {
	g := report.Gate{Title: "stackbench run " + m.Header.RunID, Active: spec.active(), Thresholds: m.Thresholds,
		ThresholdFailed: func(t report.ThresholdCheck) bool { return thresholdFails(t, spec) }}
	var v verdict
	// A run of one stack has no step: with threshold named, only its
	// thresholds are judged.
	if err := spec.needsLatency(m.Header.Latency != nil); err != nil {
		return err
	}
	judgeSteps := len(spec.FailOn) > 0 && (len(m.Steps) > 0 || !spec.thresholds)
	if judgeSteps || !spec.active() {
		gs := spec.GateSpec
		if len(gs.Metrics) == 0 {
			// By default the gate judges the run's headline metric.
			gs.Metrics = []report.GateMetric{report.GateMetric(m.Header.Headline())}
		}
		for _, mt := range gs.Metrics {
			if len(m.Header.Calls) > 0 && !slices.Contains(m.Header.Calls, string(mt)) {
				return usagef("--metrics %s: this run does not call %s (protocol calls: [%s]); gate a metric it calls, or add %s to calls:", mt, mt, strings.Join(m.Header.Calls, ", "), mt)
			}
		}
		checks, err := report.Judge(m.Steps, gs)
		if err != nil {
			return usagef("--steps: %v", err)
		}
		if judgeSteps && len(checks) == 0 {
			return &ExitError{Code: ExitNotMeasured, Msg: "--fail-on: this run has no step to judge (a run of one stack has none); name two or more stacks, or gate thresholds with --fail-on threshold"}
		}
		g.Checks = checks
		v.addSteps(checks)
	}
	if spec.thresholds {
		if len(m.Thresholds) == 0 {
			return usagef("--fail-on threshold: the run has no thresholds; add a thresholds: key to the comparison file (docs/ci.md), e.g. thresholds: {p99: 25ms}")
		}
		v.addThresholds(m.Thresholds, spec)
	}
	if err := writeCIOutputs(m, g, spec, dir, env); err != nil {
		return err
	}
	if !spec.active() {
		return nil
	}
	return v.exit(spec, "", env)
}

// thresholdFails says whether a threshold check fails the gate: fail does,
// and so do undecided and invalid when --fail-on names them.
func thresholdFails(t report.ThresholdCheck, spec gateSpec) bool {
	if !spec.thresholds {
		return false
	}
	return t.Verdict == report.ThresholdFail ||
		t.Verdict == report.ThresholdUndecided && slices.Contains(spec.FailOn, stats.CallUndecided) ||
		t.Verdict == report.ThresholdInvalid && slices.Contains(spec.FailOn, stats.CallInvalid)
}

// writeCIOutputs writes --junit and --history, and, when GITHUB_ACTIONS is
// true, the annotations (to standard output, where the runner reads them)
// and the job summary (appended to $GITHUB_STEP_SUMMARY).
func writeCIOutputs(m *report.Model, g report.Gate, spec gateSpec, dir string, env Env) error {
	if spec.junit != "" {
		if err := writeFileWith(resolvePath(env, spec.junit), func(w io.Writer) error { return report.WriteJUnit(w, g) }); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	if spec.history != "" {
		bigger, smaller := report.History(m)
		path := resolvePath(env, spec.history)
		if err := writeFileWith(path, func(w io.Writer) error { return report.WriteHistory(w, bigger) }); err != nil {
			return fmt.Errorf("--history: %w", err)
		}
		if err := writeFileWith(smallerPath(path), func(w io.Writer) error { return report.WriteHistory(w, smaller) }); err != nil {
			return fmt.Errorf("--history: %w", err)
		}
	}
	if env.lookup("GITHUB_ACTIONS") != "true" {
		return nil
	}
	if err := report.WriteGitHubAnnotations(env.Stdout, g); err != nil {
		return err
	}
	if path := env.lookup("GITHUB_STEP_SUMMARY"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("write the job summary: %w", err)
		}
		err = report.WriteJobSummary(f, m, g, filepath.Join(dir, "report.html"))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write the job summary to %s: %w", path, err)
		}
	}
	return nil
}

// smallerPath is where --history FILE puts the smaller-is-better figures:
// history.json → history-smaller.json.
func smallerPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-smaller" + ext
}

// writeFileWith creates path and writes it with write.
func writeFileWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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

// addThresholds adds the threshold checks (thresholdFails); an invalid one
// that does not fail the gate cannot be judged.
func (v *verdict) addThresholds(ts []report.ThresholdCheck, spec gateSpec) {
	v.total += len(ts)
	for _, t := range ts {
		switch {
		case thresholdFails(t, spec):
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
