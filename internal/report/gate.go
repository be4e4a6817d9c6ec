package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/stats"
)

// This file is the gate on the calls of one run (or of a comparison of two):
// which steps, on which metrics, got a call the user asked to fail on. It is
// a pure function of the steps, so that it can move with them to the
// analysis package; what a failure exits with is the command's business.

// GateMetric names a metric a gate judges.
type GateMetric string

// The metrics a step is called on.
const (
	// GateThroughput is Step.Throughput.
	GateThroughput GateMetric = "throughput"
	// GatePerCPU is Step.PerCPU, throughput per CPU-second of the server.
	GatePerCPU GateMetric = "per_cpu"
	// GateP50 and GateP99 are Step.P50 and Step.P99, the latency
	// windows' corrected percentiles at a fixed rate (a rise is a loss);
	// a run without latency windows has no such call.
	GateP50 GateMetric = "p50"
	GateP99 GateMetric = "p99"
	// GateCost is Step.Cost, the server's and the database's CPU-µs per
	// request at the latency windows' fixed rate (a rise is a loss).
	GateCost GateMetric = "cost"
)

// GateMetrics lists the throughput metrics a gate can judge, in the order
// checks are listed; LatencyGateMetrics the latency ones, which a run
// calls when it has latency windows (protocol latency:).
var (
	GateMetrics        = []GateMetric{GateThroughput, GatePerCPU}
	LatencyGateMetrics = []GateMetric{GateP50, GateP99, GateCost}
)

// Latency reports whether m is a latency metric.
func (m GateMetric) Latency() bool { return slices.Contains(LatencyGateMetrics, m) }

// change returns the step's change on metric m.
func (m GateMetric) change(s analysis.Step) analysis.Change {
	if c := s.Metric(string(m)); c != nil {
		return *c
	}
	return analysis.Change{Call: stats.CallInvalid, Reason: "the run has no latency windows (add latency: {rate: 50%} to the protocol)"}
}

// Label is the metric in words, as reports name it.
func (m GateMetric) Label() string { return analysis.MetricLabel(string(m)) }

// StepPair names a step by its two stacks: From..To on the command line.
type StepPair struct{ From, To string }

func (p StepPair) String() string { return p.From + ".." + p.To }

// ParseStepPairs reads "FROM..TO[,FROM..TO…]".
func ParseStepPairs(s string) ([]StepPair, error) {
	var out []StepPair
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		from, to, ok := strings.Cut(part, "..")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" {
			return nil, fmt.Errorf("%q is not a step: write FROM..TO with two stack names, e.g. base..head", part)
		}
		out = append(out, StepPair{from, to})
	}
	return out, nil
}

// GateSpec is what a gate judges and what fails it.
type GateSpec struct {
	// FailOn are the calls that fail the gate (loss, undecided, invalid,
	// gain, same).
	FailOn []stats.Call
	// Steps limits the gate to these steps; empty: every step.
	Steps []StepPair
	// Metrics are judged on each step; empty: throughput.
	Metrics []GateMetric
	// FailOnThresholds is --fail-on threshold: a threshold judged fail
	// fails the gate (and undecided or invalid ones too when FailOn names
	// those calls).
	FailOnThresholds bool
}

// GateCheck is one step's call on one metric, as the gate judged it.
type GateCheck struct {
	Step   analysis.Step   `json:"step"`
	Metric GateMetric      `json:"metric"`
	Change analysis.Change `json:"change"`
	// Failed is true when the call is one the gate fails on.
	Failed bool `json:"failed"`
}

// Name is the check as a line names it: "base → head user c=32 throughput".
func (c GateCheck) Name() string {
	stacks := c.Step.From + " → " + c.Step.To
	if c.Step.From == c.Step.To {
		stacks = c.Step.From
	}
	return fmt.Sprintf("%s %s c=%d %s", stacks, c.Step.Case, c.Step.Concurrency, c.Metric.Label())
}

// Invalid is true when the step could not be measured: a side is not a
// valid cell, so no call was made.
func (c GateCheck) Invalid() bool { return c.Change.Call == stats.CallInvalid }

// Judge checks every selected step on every selected metric. It fails
// with an error naming the steps the run has when spec.Steps names one it
// does not.
func Judge(steps []analysis.Step, spec GateSpec) ([]GateCheck, error) {
	metrics := spec.Metrics
	if len(metrics) == 0 {
		metrics = []GateMetric{GateThroughput}
	}
	for _, p := range spec.Steps {
		if !slices.ContainsFunc(steps, func(s analysis.Step) bool { return s.From == p.From && s.To == p.To }) {
			return nil, fmt.Errorf("no step %s in this run; its steps are %s", p, strings.Join(stepNames(steps), ", "))
		}
	}
	var out []GateCheck
	for _, s := range steps {
		if len(spec.Steps) > 0 && !slices.Contains(spec.Steps, StepPair{s.From, s.To}) {
			continue
		}
		for _, m := range metrics {
			ch := m.change(s)
			out = append(out, GateCheck{Step: s, Metric: m, Change: ch, Failed: slices.Contains(spec.FailOn, ch.Call)})
		}
	}
	return out, nil
}

// stepNames lists the distinct steps as FROM..TO, in order.
func stepNames(steps []analysis.Step) []string {
	var out []string
	for _, s := range steps {
		if n := (StepPair{s.From, s.To}).String(); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []string{"none (a run of one stack has no step; gate it with thresholds)"}
	}
	return out
}

// CheckText is one check on one line: its name and its call with the
// estimate and interval it rests on.
func CheckText(c GateCheck) string {
	return c.Name() + ": " + CallText(c.Change)
}
