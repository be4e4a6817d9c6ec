package analysis

import (
	"fmt"
	"math"
	"slices"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// ThresholdConfidence is the confidence of the thresholds as a family:
// 95 %. Each check is judged at 1 − 5 % ÷ the number of checks
// (Bonferroni), so that a stack meeting every limit fails one of them
// falsely at most 2.5 % of the time, however many checks the run has: the
// thresholds are a false-call family of their own.
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

// The estimates a threshold is judged on (ThresholdCheck.Basis).
const (
	// BasisPooled: a latency percentile of every request the cell's
	// windows held, their histograms merged (failed requests at the
	// timeout), with a bootstrap interval over processes
	// (stats.PooledQuantileInterval). A stall in a few windows sets it, as
	// it sets what the stack's users see (trap T24).
	BasisPooled = "pooled"
	// BasisMedian: the median of the per-process values (error rate,
	// throughput), with the sign test's distribution-free interval.
	BasisMedian = "median"
)

// ThresholdCheck is one threshold (plan.Thresholds) judged on one cell:
// its estimate and interval against the limit.
type ThresholdCheck struct {
	Stack string `json:"stack"`
	Case  string `json:"case"`
	// Route, when set, is the route of the mix Case the check was judged
	// on: its own requests inside the mix (plan.CaseThresholds.Route).
	Route       string `json:"route,omitempty"`
	Concurrency int    `json:"concurrency"`
	// Metric is p50, p90, p99, p999 (latency, the cell's requests
	// pooled), error_rate (the window's failed share of its requests) or
	// throughput (successful responses per second).
	Metric string `json:"metric"`
	// Unit is the unit of Limit, Estimate, Low and High: "ms", "%" or
	// "req/s".
	Unit string `json:"unit"`
	// AtMost is true when the value must stay at or below Limit (latency,
	// error rate), false when at or above it (throughput).
	AtMost bool    `json:"at_most"`
	Limit  float64 `json:"limit"`
	// Source, for a latency limit, is the windows it was judged on:
	// ThresholdOpenLoop when the run has latency windows, else
	// ThresholdClosedLoop.
	Source string `json:"source,omitempty"`
	// Basis says what Estimate is: BasisPooled for a latency percentile
	// (of every request the windows held), BasisMedian otherwise (the
	// median of the per-process values).
	Basis string `json:"basis"`
	// Estimate is the figure judged; Low and High bound its interval at
	// Confidence, null when it is not finite (too few processes).
	Estimate   float64  `json:"estimate"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
	// Windows is how many windows the values came from, Values how many
	// processes (one unit each: its windows merged, or their mean). A
	// window's failures count against a latency limit: they are in its
	// histogram at their lower bound (open loop) or at the timeout, and a
	// closed-loop window is judged even when its failures made it
	// invalid; the error rate takes every window with a load result.
	Windows int `json:"windows"`
	Values  int `json:"values"`
	// FamilySize is the number of checks the run judged together.
	FamilySize int `json:"family_size"`
	// Verdict is pass, fail, undecided or invalid; Reason says why in words.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// JudgeThresholds judges the plan's thresholds on every cell of their
// case, all together as one family (ThresholdConfidence). Latency limits
// are judged on the latency windows where the run has them (corrected
// open-loop latency at one offered rate), else on the closed-loop cells.
func JudgeThresholds(cells, latencyCells []Cell, ts []plan.CaseThresholds, timeout time.Duration) []ThresholdCheck {
	if timeout <= 0 {
		timeout = time.Minute
	}
	type job struct {
		tc    ThresholdCheck
		units thresholdUnits
	}
	var jobs []job
	for _, ct := range ts {
		for _, c := range cells {
			if c.Case != ct.Case {
				continue
			}
			lat, open := latencyCellWithWindows(latencyCells, c.Stack, c.Case, c.Concurrency)
			for _, l := range limitsOf(ct.Thresholds) {
				cell, source := c, ""
				if l.latency {
					source = ThresholdClosedLoop
					if open {
						cell, source = lat, ThresholdOpenLoop
					}
				}
				if ct.Route != "" {
					cell = routeCell(cell, ct.Route)
				}
				u := thresholdUnitsOf(cell, l, source == ThresholdClosedLoop)
				basis := BasisMedian
				if l.latency {
					basis = BasisPooled
				}
				jobs = append(jobs, job{ThresholdCheck{Stack: c.Stack, Case: c.Case, Route: ct.Route, Concurrency: c.Concurrency, Metric: l.name, Unit: l.unit,
					AtMost: l.atMost, Limit: l.limit, Source: source, Basis: basis, Windows: u.windows, Values: u.n()}, u})
			}
		}
	}
	out := make([]ThresholdCheck, 0, len(jobs))
	for _, j := range jobs {
		j.tc.FamilySize = len(jobs)
		judgeThreshold(&j.tc, j.units, 1-(1-ThresholdConfidence)/float64(len(jobs)))
		out = append(out, j.tc)
	}
	return out
}

// Target names what a check was judged on: its case, or a mix's route
// as mix/route.
func (t ThresholdCheck) Target() string {
	if t.Route != "" {
		return t.Case + "/" + t.Route
	}
	return t.Case
}

// routeCell is a mix's cell seen through one of its routes, for the
// thresholds: each window's figures the limits read — its distribution
// with failures, failed share and throughput — are the route's; a window
// without the route has no load for it.
func routeCell(c Cell, route string) Cell {
	out := c
	out.PerWindow = make([]WindowFigures, len(c.PerWindow))
	for i, w := range c.PerWindow {
		r := w.route(route)
		if r == nil {
			w.Counted, w.HasLoad, w.limitDist = false, false, nil
		} else {
			w.limitDist, w.ErrorRate, w.ThroughputRPS = r.dist, r.errorRate, r.throughputRPS
		}
		out.PerWindow[i] = w
	}
	return out
}

// latencyCellWithWindows is the latency cell of (stack, case,
// concurrency) when the run has one with windows.
func latencyCellWithWindows(cells []Cell, stack, caseName string, conc int) (Cell, bool) {
	for _, c := range cells {
		if c.Stack == stack && c.Case == caseName && c.Concurrency == conc && c.Windows > 0 {
			return c, true
		}
	}
	return Cell{}, false
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
	// latency marks a percentile limit judged on the pooled requests; q
	// is its quantile (0.99 for p99).
	latency bool
	q       float64
	value   func(WindowFigures) float64
}

func limitsOf(t plan.Thresholds) []thresholdMetric {
	var out []thresholdMetric
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, l := range []struct {
		name  string
		limit time.Duration
		q     float64
	}{{"p50", t.P50, 0.5}, {"p90", t.P90, 0.9}, {"p99", t.P99, 0.99}, {"p999", t.P999, 0.999}} {
		if l.limit > 0 {
			out = append(out, thresholdMetric{name: l.name, unit: "ms", atMost: true, limit: ms(l.limit), latency: true, q: l.q})
		}
	}
	if t.ErrorRate != nil {
		out = append(out, thresholdMetric{name: "error_rate", unit: "%", atMost: true, limit: 100 * *t.ErrorRate, all: true,
			value: func(w WindowFigures) float64 { return 100 * w.ErrorRate }})
	}
	if t.ThroughputRPS > 0 {
		out = append(out, thresholdMetric{name: "throughput", unit: "req/s", limit: t.ThroughputRPS,
			value: func(w WindowFigures) float64 { return w.ThroughputRPS }})
	}
	return out
}

// thresholdUnits are a limit's units on a cell, one per process: for a
// latency limit its windows' distributions merged (dists), else the mean
// of its windows' values (values); and how many windows they came from.
type thresholdUnits struct {
	latency bool
	q       float64
	dists   []stats.Dist
	values  []float64
	windows int
}

func (u thresholdUnits) n() int {
	if u.latency {
		return len(u.dists)
	}
	return len(u.values)
}

// thresholdUnitsOf gathers a limit's units on a cell. A closed-loop
// latency limit also takes the windows left out for their failures alone
// (invalid), their failures at the timeout in their distribution:
// failures count against the limit, not around it. (Open-loop windows
// already hold their failures, and count when behind or invalid.)
func thresholdUnitsOf(c Cell, l thresholdMetric, closed bool) thresholdUnits {
	type key struct{ round, process int }
	u := thresholdUnits{latency: l.latency, q: l.q}
	sum, n, merged := map[key]float64{}, map[key]int{}, map[key]*stats.Dist{}
	var order []key
	for _, w := range c.PerWindow {
		take := w.Counted || l.all && w.HasLoad || l.latency && closed && w.HasLoad && failedOnly(w.Flags)
		if !take || l.latency && w.limitDist == nil {
			continue
		}
		k := key{w.Round, w.Process}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
		u.windows++
		if l.latency {
			merged[k] = mergeDists(merged[k], w.limitDist)
			continue
		}
		sum[k] += l.value(w)
	}
	for _, k := range order {
		if l.latency {
			u.dists = append(u.dists, *merged[k])
			continue
		}
		u.values = append(u.values, sum[k]/float64(n[k]))
	}
	return u
}

// mergeDists adds d's counts to into (a new Dist when into is nil); the
// values stay ascending.
func mergeDists(into, d *stats.Dist) *stats.Dist {
	counts := map[float64]int64{}
	if into != nil {
		for i, v := range into.Values {
			counts[v] += into.Counts[i]
		}
	}
	for i, v := range d.Values {
		counts[v] += d.Counts[i]
	}
	out := &stats.Dist{}
	for v := range counts {
		out.Values = append(out.Values, v)
	}
	slices.Sort(out.Values)
	for _, v := range out.Values {
		out.Counts = append(out.Counts, counts[v])
	}
	return out
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

// processesNeeded is the fewest processes with a finite interval at
// confidence: the sign test's (2^(1−n) ≤ 1 − confidence); the pooled
// bootstrap is held to the same floor, since with fewer units its
// interval is narrower than it can honestly be.
func processesNeeded(confidence float64) int {
	need := 1
	for math.Ldexp(1, 1-need) > 1-confidence {
		need++
	}
	return need
}

// judgeThreshold sets tc's estimate, interval at confidence and verdict
// from its units.
func judgeThreshold(tc *ThresholdCheck, u thresholdUnits, confidence float64) {
	tc.Confidence = confidence
	if u.n() == 0 {
		tc.Verdict, tc.Reason = ThresholdInvalid, "no window of the cell to judge"
		return
	}
	family := fmt.Sprintf("one of the run's %d checks, judged together at %.0f %%", tc.FamilySize, 100*ThresholdConfidence)
	var lo, hi float64
	finite := u.n() >= processesNeeded(confidence)
	if u.latency {
		est, l, h, err := stats.PooledQuantileInterval(u.dists, u.q, confidence)
		if err != nil {
			tc.Verdict, tc.Reason = ThresholdInvalid, "the cell's windows hold no latency: "+err.Error()
			return
		}
		tc.Estimate, lo, hi = est/1000, l/1000, h/1000
		finite = finite && !math.IsInf(l, 0) && !math.IsInf(h, 0)
	} else {
		s := benchmath.AssumeNothing.Summary(benchmath.NewSample(u.values, &benchmath.DefaultThresholds), confidence)
		tc.Estimate, tc.Confidence, lo, hi = s.Center, s.Confidence, s.Lo, s.Hi
		finite = !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0)
	}
	if finite {
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
		tc.Reason = fmt.Sprintf("no finite %.4g %% interval with %d processes (%s); %d or more decide", 100*confidence, u.n(), family, processesNeeded(confidence))
	case good(lo) && good(hi):
		tc.Verdict, tc.Reason = ThresholdPass, "the whole interval meets the limit ("+family+")"
	case !good(lo) && !good(hi):
		tc.Verdict, tc.Reason = ThresholdFail, "the whole interval misses the limit ("+family+")"
	default:
		tc.Verdict, tc.Reason = ThresholdUndecided, "the interval straddles the limit; more processes may decide it ("+family+")"
	}
}
