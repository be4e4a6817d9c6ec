package cli

import (
	"errors"
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

// gateSpec is a parsed gate: what to judge and what fails it (with
// --fail-on threshold, GateSpec.FailOnThresholds), and the CI files to
// write.
type gateSpec struct {
	report.GateSpec
	// junit and history are the files of --junit and --history
	// (relative to the working directory), "" when not asked for.
	junit, history string
}

// needsLatency says why the gate cannot judge a run without latency
// windows (nil when it can), as a usage error.
func (g gateSpec) needsLatency(hasLatency bool) error {
	if err := g.NeedsLatency(hasLatency); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// active reports whether the command line asked for a gate.
func (g gateSpec) active() bool { return g.Active() }

// parse reads the gate's flags; comparison is true for report A B.
func (g *gateFlags) parse(comparison bool) (gateSpec, error) {
	var spec gateSpec
	var err error
	if spec.FailOn, spec.FailOnThresholds, err = parseFailOn(*g.failOn); err != nil {
		return spec, err
	}
	if spec.FailOnThresholds && comparison {
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

// judgeRun is the gate on one run (report.JudgeRun): its steps' calls
// (when --fail-on names a call) and its thresholds (when it names
// threshold). It writes the CI outputs asked for (--junit, --history, and
// GitHub's annotations and job summary under GitHub Actions), then returns
// ExitGateFailed naming each failing check with its interval;
// ExitNotMeasured when a gated check could not be measured (a cell
// insufficient, failed or missing) and invalid is not a call the gate
// fails on; nil when every check passed.
func judgeRun(m *report.Model, spec gateSpec, dir string, env Env) error {
	g, err := report.JudgeRun(m, spec.GateSpec)
	switch {
	case errors.Is(err, report.ErrNoStepToJudge):
		return &ExitError{Code: ExitNotMeasured, Msg: err.Error()}
	case err != nil:
		return usagef("%v", err)
	}
	if err := writeCIOutputs(m, g, spec, dir, env); err != nil {
		return err
	}
	if !spec.active() {
		return nil
	}
	return verdictExit(g.Verdict(), spec, "", env)
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

// verdictExit turns a gate's verdict into the command's exit: failures
// first, then checks that could not be judged. what qualifies the steps
// in the messages ("from A to B ").
func verdictExit(v report.Verdict, spec gateSpec, what string, env Env) error {
	if len(v.Failed) > 0 {
		msg := fmt.Sprintf("gate failed: %d of %d check(s) %scalled %s:\n  %s", len(v.Failed), v.Total, what, failOnText(spec), strings.Join(v.Failed, "\n  "))
		if len(v.Unmeasured) > 0 {
			msg += fmt.Sprintf("\nand %d could not be judged:\n  %s", len(v.Unmeasured), strings.Join(v.Unmeasured, "\n  "))
		}
		return &ExitError{Code: ExitGateFailed, Msg: msg}
	}
	if len(v.Unmeasured) > 0 {
		return &ExitError{Code: ExitNotMeasured, Msg: fmt.Sprintf("cannot judge %d of %d check(s) %s(add invalid to --fail-on to fail on them instead):\n  %s", len(v.Unmeasured), v.Total, what, strings.Join(v.Unmeasured, "\n  "))}
	}
	fmt.Fprintf(env.Stderr, "gate passed: %s %sgot none of %s\n", countNoun(v.Total, "check"), what, failOnText(spec))
	return nil
}

// failOnText is what --fail-on fails on, in words: "loss or undecided",
// "a failed threshold".
func failOnText(spec gateSpec) string {
	parts := make([]string, 0, len(spec.FailOn)+1)
	for _, c := range spec.FailOn {
		parts = append(parts, string(c))
	}
	if spec.FailOnThresholds {
		parts = append(parts, "a failed threshold")
	}
	return strings.Join(parts, " or ")
}
