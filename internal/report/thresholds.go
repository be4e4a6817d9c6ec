package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"math"
	"slices"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// ThresholdConfidence is the confidence of the thresholds as a family:
// 95 %. Each check is judged with a one-sample distribution-free interval
// for the median of the cell's per-process values (the sign test's order
// statistics) at 1 − 5 % ÷ the number of checks (Bonferroni), so that a
// stack meeting every limit fails one of them falsely at most 2.5 % of the
// time, however many checks the run has: the thresholds are a false-call
// family of their own. With too few processes for a finite interval at
// that level a check is undecided.
const ThresholdConfidence = 0.95

// The sources a latency threshold is judged on.
const (
	// ThresholdOpenLoop: the latency windows (protocol latency:), whose
	// latency is corrected for coordinated omission and holds every
	// request due, the failed ones at their lower bound or the timeout.
	ThresholdOpenLoop = "open_loop_corrected"
	// ThresholdClosedLoop: the closed-loop windows (no latency windows in
	// the run): uncorrected, and measured at whatever rate the stack ran.
	ThresholdClosedLoop = "closed_loop"
)

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
	// Source, for a latency limit, is the windows it was judged on:
	// ThresholdOpenLoop when the run has latency windows, else
	// ThresholdClosedLoop.
	Source string `json:"source,omitempty"`
	// Median is the median of the per-process values; Low and High bound
	// its interval at Confidence, null when it is not finite (too few
	// processes).
	Median     float64  `json:"median"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
	// Windows is how many windows the values came from, Values how many
	// processes (one value each: the mean of its windows'). A window's
	// failures count against a latency limit: one whose failed share is
	// above the percentile's tail (1 % for p99) has that percentile at the
	// timeout, and it is judged even when its failures made it invalid;
	// the error rate takes every window with a load result.
	Windows int `json:"windows"`
	Values  int `json:"values"`
	// FamilySize is the number of checks the run judged together.
	FamilySize int `json:"family_size"`
	// Verdict is pass, fail, undecided or invalid; Reason says why in words.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// addThresholds judges the plan's thresholds on every cell of their case,
// all together as one family (ThresholdConfidence). Latency limits are
// judged on the run's latency windows where it has them (corrected
// open-loop latency at one offered rate), else on the closed-loop cells.
func addThresholds(m *Model, ts []plan.CaseThresholds, timeout time.Duration) {
	if timeout <= 0 {
		timeout = time.Minute
	}
	type job struct {
		tc     ThresholdCheck
		values []float64
	}
	var jobs []job
	for _, ct := range ts {
		for _, c := range m.Cells {
			if c.Case != ct.Case {
				continue
			}
			lat, open := m.latencyCell(c.Stack, c.Case, c.Concurrency)
			for _, l := range limitsOf(ct.Thresholds) {
				cell, source := c, ""
				if l.latency {
					source = ThresholdClosedLoop
					if open {
						cell, source = lat, ThresholdOpenLoop
					}
				}
				windows, values := thresholdValues(cell, l, source == ThresholdClosedLoop, timeout)
				jobs = append(jobs, job{ThresholdCheck{Stack: c.Stack, Case: c.Case, Concurrency: c.Concurrency, Metric: l.name, Unit: l.unit,
					AtMost: l.atMost, Limit: l.limit, Source: source, Windows: windows, Values: len(values)}, values})
			}
		}
	}
	for _, j := range jobs {
		j.tc.FamilySize = len(jobs)
		judgeThreshold(&j.tc, j.values, 1-(1-ThresholdConfidence)/float64(len(jobs)))
		m.Thresholds = append(m.Thresholds, j.tc)
	}
}

// latencyCell is the latency cell of (stack, case, concurrency) when the
// run has one with windows.
func (m *Model) latencyCell(stack, caseName string, conc int) (analysis.Cell, bool) {
	for _, c := range m.LatencyCells {
		if c.Stack == stack && c.Case == caseName && c.Concurrency == conc && c.Windows > 0 {
			return c, true
		}
	}
	return analysis.Cell{}, false
}

// thresholdMetric is one limit of plan.Thresholds, with how to read its
// per-window value in the limit's unit.
type thresholdMetric struct {
	name   string
	unit   string
	atMost bool
	limit  float64
	// all takes every window with a load result, not only counted ones.
	all bool
	// latency marks a percentile limit; tail is its share above (0.01
	// for p99).
	latency bool
	tail    float64
	value   func(analysis.WindowFigures) float64
}

func limitsOf(t plan.Thresholds) []thresholdMetric {
	var out []thresholdMetric
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, l := range []struct {
		name  string
		limit time.Duration
		tail  float64
		value func(analysis.WindowFigures) float64
	}{
		{"p50", t.P50, 0.5, func(w analysis.WindowFigures) float64 { return w.Latency.P50 / 1000 }},
		{"p90", t.P90, 0.1, func(w analysis.WindowFigures) float64 { return w.Latency.P90 / 1000 }},
		{"p99", t.P99, 0.01, func(w analysis.WindowFigures) float64 { return w.Latency.P99 / 1000 }},
		{"p999", t.P999, 0.001, func(w analysis.WindowFigures) float64 { return w.Latency.P999 / 1000 }},
	} {
		if l.limit > 0 {
			out = append(out, thresholdMetric{name: l.name, unit: "ms", atMost: true, limit: ms(l.limit), latency: true, tail: l.tail, value: l.value})
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

// thresholdValues are a limit's values on a cell, one per process (the
// mean of its windows'), and how many windows they came from. A closed
// loop latency limit also takes the windows left out for their failures
// alone (invalid), and a window whose failed share is above the
// percentile's tail has that percentile at the timeout: failures count
// against the limit, not around it. (Open-loop windows already hold
// their failures in their histograms, and count when behind or invalid.)
func thresholdValues(c analysis.Cell, l thresholdMetric, closed bool, timeout time.Duration) (windows int, values []float64) {
	type key struct{ round, process int }
	sum, n := map[key]float64{}, map[key]int{}
	var order []key
	for _, w := range c.PerWindow {
		take := w.Counted || l.all && w.HasLoad || l.latency && closed && w.HasLoad && failedOnly(w.Flags)
		if !take {
			continue
		}
		v := l.value(w)
		if l.latency && closed && w.ErrorRate > l.tail {
			v = float64(timeout) / float64(time.Millisecond)
		}
		k := key{w.Round, w.Process}
		if n[k] == 0 {
			order = append(order, k)
		}
		sum[k] += v
		n[k]++
		windows++
	}
	for _, k := range order {
		values = append(values, sum[k]/float64(n[k]))
	}
	return windows, values
}

// failedOnly reports whether a window's flags leave it out for its
// failures alone (invalid), not for a disturbed host or a lost server.
func failedOnly(flags []journal.Flag) bool {
	if !slices.Contains(flags, journal.FlagInvalid) {
		return false
	}
	return !slices.ContainsFunc(flags, func(f journal.Flag) bool {
		return f == journal.FlagFailed || f == journal.FlagContended || f == journal.FlagSuspended || f == journal.FlagHostSlow
	})
}

// judgeCell judges each limit of t on cell c alone (a family of its own
// checks), on the closed-loop windows.
func judgeCell(c analysis.Cell, t plan.Thresholds) []ThresholdCheck {
	m := &Model{Cells: []analysis.Cell{c}}
	addThresholds(m, []plan.CaseThresholds{{Case: c.Case, Thresholds: t}}, 0)
	return m.Thresholds
}

// judgeThreshold sets tc's median, interval at confidence and verdict
// from values.
func judgeThreshold(tc *ThresholdCheck, values []float64, confidence float64) {
	tc.Confidence = confidence
	if len(values) == 0 {
		tc.Verdict, tc.Reason = ThresholdInvalid, "no window of the cell to judge"
		return
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(values, &benchmath.DefaultThresholds), confidence)
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
	family := fmt.Sprintf("one of the run's %d checks, judged together at %.0f %%", tc.FamilySize, 100*ThresholdConfidence)
	switch {
	case !finite:
		need := 1
		for math.Ldexp(1, 1-need) > 1-confidence {
			need++
		}
		tc.Verdict = ThresholdUndecided
		tc.Reason = fmt.Sprintf("no finite %.4g %% interval with %d processes (%s); %d or more decide", 100*confidence, len(values), family, need)
	case good(s.Lo) && good(s.Hi):
		tc.Verdict, tc.Reason = ThresholdPass, "the whole interval meets the limit ("+family+")"
	case !good(s.Lo) && !good(s.Hi):
		tc.Verdict, tc.Reason = ThresholdFail, "the whole interval misses the limit ("+family+")"
	default:
		tc.Verdict, tc.Reason = ThresholdUndecided, "the interval straddles the limit; more processes may decide it ("+family+")"
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
