package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"math"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/stackbench/stackbench/internal/plan"
)

// ThresholdConfidence is the confidence of the interval a threshold is
// judged with: 95 %, a one-sample distribution-free interval for the
// median of the cell's per-window values (the sign test's order
// statistics). It needs six windows to be finite; with fewer, every
// threshold of the cell is undecided.
const ThresholdConfidence = 0.95

// The verdicts on a threshold.
const (
	// ThresholdPass: the whole interval is on the right side of the limit.
	ThresholdPass = "pass"
	// ThresholdFail: the whole interval is on the wrong side.
	ThresholdFail = "fail"
	// ThresholdUndecided: the interval straddles the limit (or is not
	// finite); more windows may decide it.
	ThresholdUndecided = "undecided"
	// ThresholdInvalid: the cell has no window to judge.
	ThresholdInvalid = "invalid"
)

// ThresholdCheck is one threshold (plan.Thresholds) judged on one cell:
// the median of the cell's per-window values and its interval against the
// limit.
type ThresholdCheck struct {
	Stack       string `json:"stack"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	// Metric is p50, p90, p99, p999 (latency of successful responses, per
	// window), error_rate (the window's failed share of its requests) or
	// throughput (successful responses per second).
	Metric string `json:"metric"`
	// Unit is the unit of Limit, Median, Low and High: "ms", "%" or "req/s".
	Unit string `json:"unit"`
	// AtMost is true when the value must stay at or below Limit (latency,
	// error rate), false when at or above it (throughput).
	AtMost bool    `json:"at_most"`
	Limit  float64 `json:"limit"`
	// Median is the median of the per-window values; Low and High bound
	// its interval at Confidence, null when it is not finite (too few
	// windows).
	Median     float64  `json:"median"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
	// Windows is how many windows the values came from: the counted ones
	// for latency and throughput; for the error rate every window with a
	// load result, since a window with more than 1 % failures is not
	// counted.
	Windows int `json:"windows"`
	// Verdict is pass, fail, undecided or invalid; Reason says why in words.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// addThresholds judges the plan's thresholds on every cell of their case.
func addThresholds(m *Model, ts []plan.CaseThresholds) {
	for _, ct := range ts {
		for _, c := range m.Cells {
			if c.Case == ct.Case {
				m.Thresholds = append(m.Thresholds, judgeCell(c, ct.Thresholds)...)
			}
		}
	}
}

// thresholdMetric is one limit of plan.Thresholds, with how to read its
// per-window value in the limit's unit.
type thresholdMetric struct {
	name   string
	unit   string
	atMost bool
	limit  float64
	// all takes every window with a load result, not only counted ones.
	all   bool
	value func(analysis.WindowFigures) float64
}

func limitsOf(t plan.Thresholds) []thresholdMetric {
	var out []thresholdMetric
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, l := range []struct {
		name  string
		limit time.Duration
		value func(analysis.WindowFigures) float64
	}{
		{"p50", t.P50, func(w analysis.WindowFigures) float64 { return w.Latency.P50 / 1000 }},
		{"p90", t.P90, func(w analysis.WindowFigures) float64 { return w.Latency.P90 / 1000 }},
		{"p99", t.P99, func(w analysis.WindowFigures) float64 { return w.Latency.P99 / 1000 }},
		{"p999", t.P999, func(w analysis.WindowFigures) float64 { return w.Latency.P999 / 1000 }},
	} {
		if l.limit > 0 {
			out = append(out, thresholdMetric{name: l.name, unit: "ms", atMost: true, limit: ms(l.limit), value: l.value})
		}
	}
	if t.ErrorRate != nil {
		out = append(out, thresholdMetric{name: "error_rate", unit: "%", atMost: true, limit: 100 * *t.ErrorRate, all: true,
			value: func(w analysis.WindowFigures) float64 { return 100 * w.ErrorRate }})
	}
	if t.ThroughputRPS > 0 {
		out = append(out, thresholdMetric{name: "throughput", unit: "req/s", limit: t.ThroughputRPS,
			value: func(w analysis.WindowFigures) float64 { return w.ThroughputRPS }})
	}
	return out
}

// judgeCell judges each limit of t on cell c.
func judgeCell(c analysis.Cell, t plan.Thresholds) []ThresholdCheck {
	var out []ThresholdCheck
	for _, l := range limitsOf(t) {
		var values []float64
		for _, w := range c.PerWindow {
			if w.Counted || l.all && w.HasLoad {
				values = append(values, l.value(w))
			}
		}
		tc := ThresholdCheck{Stack: c.Stack, Case: c.Case, Concurrency: c.Concurrency, Metric: l.name, Unit: l.unit,
			AtMost: l.atMost, Limit: l.limit, Windows: len(values), Confidence: ThresholdConfidence}
		judgeThreshold(&tc, values)
		out = append(out, tc)
	}
	return out
}

// judgeThreshold sets tc's median, interval and verdict from values.
func judgeThreshold(tc *ThresholdCheck, values []float64) {
	if len(values) == 0 {
		tc.Verdict, tc.Reason = ThresholdInvalid, "no window of the cell to judge"
		return
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(values, &benchmath.DefaultThresholds), ThresholdConfidence)
	tc.Median, tc.Confidence = s.Center, s.Confidence
	finite := !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0)
	if finite {
		lo, hi := s.Lo, s.Hi
		tc.Low, tc.High = &lo, &hi
	}
	good := func(v float64) bool {
		if tc.AtMost {
			return v <= tc.Limit
		}
		return v >= tc.Limit
	}
	switch {
	case !finite:
		tc.Verdict = ThresholdUndecided
		tc.Reason = fmt.Sprintf("no finite %.0f %% interval with %d windows; 6 or more decide", 100*ThresholdConfidence, len(values))
	case good(s.Lo) && good(s.Hi):
		tc.Verdict, tc.Reason = ThresholdPass, "the whole interval meets the limit"
	case !good(s.Lo) && !good(s.Hi):
		tc.Verdict, tc.Reason = ThresholdFail, "the whole interval misses the limit"
	default:
		tc.Verdict, tc.Reason = ThresholdUndecided, "the interval straddles the limit; more windows may decide it"
	}
}

// ThresholdText is a check on one line: "gin user c=32 p99 ≤ 25 ms: fail,
// median 31.2 ms (29.8 … 33.0 ms, 6 windows)".
func ThresholdText(t ThresholdCheck) string {
	op := "≥"
	if t.AtMost {
		op = "≤"
	}
	s := fmt.Sprintf("%s %s c=%d %s %s %s: %s", t.Stack, t.Case, t.Concurrency, t.Metric, op, unitValue(t.Limit, t.Unit), t.Verdict)
	if t.Verdict == ThresholdInvalid {
		return s + ", " + t.Reason
	}
	s += ", median " + unitValue(t.Median, t.Unit)
	if t.Low != nil && t.High != nil {
		return s + fmt.Sprintf(" (%s … %s, %d windows)", trimNum(*t.Low), unitValue(*t.High, t.Unit), t.Windows)
	}
	return s + fmt.Sprintf(" (no finite interval with %d windows)", t.Windows)
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
