package report

import (
	"fmt"
	"math"

	"github.com/stackbench/stackbench/internal/analysis"
)

// The thresholds are judged in analysis (analysis.JudgeThresholds); the
// report renders them. These names keep the renderers' and the gate's
// words short.
type ThresholdCheck = analysis.ThresholdCheck

// ThresholdConfidence is analysis.ThresholdConfidence.
const ThresholdConfidence = analysis.ThresholdConfidence

// The sources and verdicts of a threshold (analysis's).
const (
	ThresholdOpenLoop   = analysis.ThresholdOpenLoop
	ThresholdClosedLoop = analysis.ThresholdClosedLoop
	ThresholdPass       = analysis.ThresholdPass
	ThresholdFail       = analysis.ThresholdFail
	ThresholdUndecided  = analysis.ThresholdUndecided
	ThresholdInvalid    = analysis.ThresholdInvalid
)

// ThresholdText is a check on one line: "gin user c=32 p99 ≤ 25 ms: fail,
// 31.2 ms of all requests (29.8 … 33.0 ms, 6 processes)" for a latency
// percentile (pooled), "… error_rate ≤ 1 %: pass, median 0.1 % (…)"
// otherwise.
func ThresholdText(t ThresholdCheck) string {
	op := "≥"
	if t.AtMost {
		op = "≤"
	}
	s := fmt.Sprintf("%s %s c=%d %s %s %s: %s", t.Stack, t.Target(), t.Concurrency, t.Metric, op, unitValue(t.Limit, t.Unit), t.Verdict)
	if t.Verdict == ThresholdInvalid {
		return s + ", " + t.Reason
	}
	if t.Basis == analysis.BasisPooled {
		s += ", " + unitValue(t.Estimate, t.Unit) + " of all requests"
	} else {
		s += ", median " + unitValue(t.Estimate, t.Unit)
	}
	if t.Source == ThresholdOpenLoop {
		s += " at the latency windows' rate (corrected)"
	}
	if t.Low != nil && t.High != nil {
		return s + fmt.Sprintf(" (%s … %s, %s)", trimNum(*t.Low), unitValue(*t.High, t.Unit), countProcesses(t))
	}
	return s + fmt.Sprintf(" (no finite interval with %s)", countProcesses(t))
}

func unitValue(v float64, unit string) string {
	if unit == "%" {
		return trimNum(v) + " %"
	}
	return trimNum(v) + " " + unit
}

// trimNum writes a figure with three significant digits at least.
func trimNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// countProcesses says what a check's values came from: "8 processes" or
// "6 processes, 12 windows".
func countProcesses(t ThresholdCheck) string {
	if t.Windows == t.Values {
		return fmt.Sprintf("%d processes", t.Values)
	}
	return fmt.Sprintf("%d processes, %d windows", t.Values, t.Windows)
}
