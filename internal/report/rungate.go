package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/stats"
)

// This file is the gate on one run as the commands ask for it (run and
// report with --fail-on): which checks a run's model gives, and the
// verdict in lines. The command turns an error into its exit status and
// writes the lines; it reads no field of the model.

// ErrNoStepToJudge is JudgeRun's answer when --fail-on names a call and
// the run has no step (a run of one stack): nothing could be measured.
var ErrNoStepToJudge = errors.New("--fail-on: this run has no step to judge (a run of one stack has none); name two or more stacks, or gate thresholds with --fail-on threshold")

// Active reports whether the command line asked for a gate: a call or a
// threshold to fail on.
func (s GateSpec) Active() bool { return len(s.FailOn) > 0 || s.FailOnThresholds }

// NeedsLatency says why the gate cannot judge a run without latency
// windows (nil when it can): it names p50, p99 or cost.
func (s GateSpec) NeedsLatency(hasLatency bool) error {
	if hasLatency {
		return nil
	}
	for _, m := range s.Metrics {
		if m.Latency() {
			return fmt.Errorf("--metrics %s: the run has no latency windows, so its steps have no %s call; add latency: {rate: 50%%} to the comparison file's protocol (or --latency-rate 50%%) and run again (docs/ci.md)", m, m)
		}
	}
	return nil
}

// ThresholdFails says whether a threshold check fails the gate: fail does,
// and so do undecided and invalid when FailOn names them; none does unless
// FailOnThresholds.
func (s GateSpec) ThresholdFails(t ThresholdCheck) bool {
	if !s.FailOnThresholds {
		return false
	}
	return t.Verdict == ThresholdFail ||
		t.Verdict == ThresholdUndecided && slices.Contains(s.FailOn, stats.CallUndecided) ||
		t.Verdict == ThresholdInvalid && slices.Contains(s.FailOn, stats.CallInvalid)
}

// CheckRunGate checks, before anything is written, that the run can answer
// the gate: its latency windows when a latency metric is judged, and every
// step --steps names.
func CheckRunGate(m *Model, s GateSpec) error {
	if err := s.NeedsLatency(m.Header.Latency != nil); err != nil {
		return err
	}
	if _, err := Judge(m.Steps, s); err != nil {
		return fmt.Errorf("--steps: %w", err)
	}
	return nil
}

// JudgeRun is the gate on one run: its steps' calls (when FailOn names a
// call, or when no gate is active, to show them) and its thresholds (when
// FailOnThresholds). The gate's metrics default to the run's headline. An
// error is a question the run cannot answer (the command's usage) but for
// ErrNoStepToJudge.
func JudgeRun(m *Model, s GateSpec) (Gate, error) {
	g := Gate{Title: "stackbench run " + m.Header.RunID, Active: s.Active(), Thresholds: m.Thresholds,
		ThresholdFailed: s.ThresholdFails, JudgesThresholds: s.FailOnThresholds}
	if err := s.NeedsLatency(m.Header.Latency != nil); err != nil {
		return g, err
	}
	// A run of one stack has no step: with threshold named, only its
	// thresholds are judged.
	judgeSteps := len(s.FailOn) > 0 && (len(m.Steps) > 0 || !s.FailOnThresholds)
	if judgeSteps || !s.Active() {
		gs := s
		if len(gs.Metrics) == 0 {
			// By default the gate judges the run's headline metric.
			gs.Metrics = []GateMetric{GateMetric(m.Header.Headline())}
		}
		for _, mt := range gs.Metrics {
			if len(m.Header.Calls) > 0 && !slices.Contains(m.Header.Calls, string(mt)) {
				return g, fmt.Errorf("--metrics %s: this run does not call %s (protocol calls: [%s]); gate a metric it calls, or add %s to calls:", mt, mt, strings.Join(m.Header.Calls, ", "), mt)
			}
		}
		checks, err := Judge(m.Steps, gs)
		if err != nil {
			return g, fmt.Errorf("--steps: %w", err)
		}
		if judgeSteps && len(checks) == 0 {
			return g, ErrNoStepToJudge
		}
		g.Checks = checks
	}
	if s.FailOnThresholds && len(m.Thresholds) == 0 {
		return g, errors.New("--fail-on threshold: the run has no thresholds; add a thresholds: key to the comparison file (docs/ci.md), e.g. thresholds: {p99: 25ms}")
	}
	return g, nil
}

// Verdict is a judged gate in lines: how many checks it judged, those
// that failed it and those that could not be judged.
type Verdict struct {
	Total              int
	Failed, Unmeasured []string
}

// Verdict lists the gate's checks that failed it (CheckText) and those
// that could not be measured; the thresholds count when the gate judges
// them, an invalid one that does not fail the gate as not judged.
func (g Gate) Verdict() Verdict {
	var v Verdict
	v.Total += len(g.Checks)
	for _, c := range g.Checks {
		switch {
		case c.Failed:
			v.Failed = append(v.Failed, CheckText(c))
		case c.Invalid():
			v.Unmeasured = append(v.Unmeasured, CheckText(c))
		}
	}
	if !g.JudgesThresholds {
		return v
	}
	v.Total += len(g.Thresholds)
	for _, t := range g.Thresholds {
		switch {
		case g.thresholdFailed(t):
			v.Failed = append(v.Failed, "threshold "+ThresholdText(t))
		case t.Verdict == ThresholdInvalid:
			v.Unmeasured = append(v.Unmeasured, "threshold "+ThresholdText(t))
		}
	}
	return v
}
