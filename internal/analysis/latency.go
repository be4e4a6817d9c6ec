package analysis

import (
	"fmt"
	"slices"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// The latency windows (plan.LatencyRate; docs/statistics.md, "Latency at
// a fixed rate"): open-loop windows at one offered rate per case and
// concurrency, journaled apart (journal.KindLatency). They make cells of
// their own (Result.LatencyCells), never mixed with the closed-loop ones,
// and each step calls their corrected p50 and p99 like throughput, paired
// by round, in the run's false-call family, with the direction reversed:
// a rise is a loss.

// LatencyInfo is what the header says of a run's latency windows; nil
// without them.
type LatencyInfo struct {
	// Rate is the protocol's rate as written ("50%", "800").
	Rate string `json:"rate"`
	// FirstRound is the first round with latency windows.
	FirstRound int `json:"first_round"`
	// RateRounds is how many rounds' closed-loop windows fixed a share's
	// rate (plan.Protocol.RateRounds); 0 for an absolute rate.
	RateRounds int `json:"rate_rounds,omitempty"`
	// Rates are the offered rates fixed per case and concurrency, in
	// journal order.
	Rates []LatencyRateInfo `json:"rates,omitempty"`
	// Planned counts the latency windows the plan's windows (and extra
	// rounds') are followed by, Windows the final ones journaled, Behind
	// those flagged behind (the server did not keep up: counted, at their
	// measured tail, latencyCounted).
	Planned int `json:"planned"`
	Windows int `json:"windows"`
	Behind  int `json:"behind"`
}

// LatencyRateInfo is one case and concurrency's offered rate.
type LatencyRateInfo struct {
	Case        string  `json:"case"`
	Concurrency int     `json:"concurrency"`
	RateRPS     float64 `json:"rate_rps"`
	// Slowest and SlowestRPS are the stack and its closed-loop median the
	// share was taken of; empty for an absolute rate.
	Slowest    string  `json:"slowest,omitempty"`
	SlowestRPS float64 `json:"slowest_rps,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	// PerFlow is set for a flow case: RateRPS and SlowestRPS are then
	// flows per second, and the JSON names them so (rate_flows_per_s,
	// slowest_flows_per_s; perflow.go).
	PerFlow bool `json:"per_flow,omitempty"`
}

// LatencyRate fixes the offered rate of one case and concurrency's latency
// windows from the closed-loop windows of the first rateRounds rounds:
// share × the lowest of the stacks' median throughputs (for a flow case,
// completed flows per second: the rate is then of flows, servedRate). A stack's median
// is over its counted windows of the cell in those rounds, or, when it has
// none, over those with a result and some success (a stack that served
// nothing cannot set the rate). With no stack to go by, the rate is 0 and
// Reason says why.
func LatencyRate(share float64, rateRounds int, cas string, conc int, stacks []string, finals []journal.Window) journal.LatencyRate {
	rateRounds = max(rateRounds, 1)
	lr := journal.LatencyRate{Case: cas, Concurrency: conc, Share: share, MedianRPS: map[string]float64{}}
	for _, s := range stacks {
		var counted, served []float64
		for i := range finals {
			w := &finals[i]
			if w.Round < 1 || w.Round > rateRounds || w.Stack != s || w.Case != cas || w.Concurrency != conc || w.Load == nil || w.Load.Successes == 0 {
				continue
			}
			rate := servedRate(w.Load)
			if rate <= 0 {
				continue
			}
			served = append(served, rate)
			if w.Valid() {
				counted = append(counted, rate)
			}
		}
		if len(counted) == 0 {
			counted = served
		}
		if med, err := stats.Quantile(counted, 0.5); err == nil && med > 0 {
			lr.MedianRPS[s] = med
			if lr.Slowest == "" || med < lr.MedianRPS[lr.Slowest] {
				lr.Slowest = s
			}
		}
	}
	if lr.Slowest == "" {
		lr.MedianRPS = nil
		lr.Reason = fmt.Sprintf("no stack served %s at c=%d in %s, so there is no median to take %g %% of", cas, conc, RoundsUpTo(rateRounds), 100*share)
		return lr
	}
	lr.RateRPS = share * lr.MedianRPS[lr.Slowest]
	return lr
}

// latencyInfo summarises the journal's latency windows for the header.
func latencyInfo(res *journal.Results, finals []journal.Window) *LatencyInfo {
	proto := res.RunPlan().Protocol
	l := proto.Latency
	if l == nil {
		return nil
	}
	info := &LatencyInfo{Rate: l.String(), FirstRound: proto.LatencyFirstRound(), Windows: len(finals)}
	if l.Share > 0 {
		info.RateRounds = proto.RateRounds()
	}
	for _, w := range res.PlannedWindows() {
		if proto.LatencyAfter(w) {
			info.Planned++
		}
	}
	for _, lr := range res.LatencyRates {
		ri := LatencyRateInfo{Case: lr.Case, Concurrency: lr.Concurrency, RateRPS: lr.RateRPS, Reason: lr.Reason, PerFlow: lr.PerFlow}
		if lr.Share > 0 && lr.Slowest != "" {
			ri.Slowest, ri.SlowestRPS = lr.Slowest, lr.MedianRPS[lr.Slowest]
		}
		info.Rates = append(info.Rates, ri)
	}
	for i := range finals {
		if finals[i].HasFlag(journal.FlagBehind) {
			info.Behind++
		}
	}
	return info
}

// latencyCells builds a latency cell for every planned cell from its
// final latency windows, in the order of the closed-loop cells; nil when
// the run has no latency windows.
func latencyCells(m *Result, res *journal.Results, finals []journal.Window) []Cell {
	if res.RunPlan().Protocol.Latency == nil {
		return nil
	}
	return cellsOf(m, res, finals, true)
}

// LatencyCell returns the latency cell of (stack, case, concurrency).
func (m *Result) LatencyCell(stack, caseName string, concurrency int) (Cell, bool) {
	for _, c := range m.LatencyCells {
		if c.Stack == stack && c.Case == caseName && c.Concurrency == concurrency {
			return c, true
		}
	}
	return Cell{}, false
}

// latencyCellOrMissing is LatencyCell, or a missing cell.
func (m *Result) latencyCellOrMissing(stack string, ci CaseInfo, conc int) Cell {
	if c, ok := m.LatencyCell(stack, ci.Name, conc); ok {
		return c
	}
	return Cell{Stack: stack, Case: ci.Name, Concurrency: conc, Database: ci.Database, State: CellMissing}
}

// latencyMetric is one call of a step's latency windows: a quantile of
// the pooled corrected histograms (stats.DecidePooled), with the window's
// own figure beside it (for the pairs' noise and the windows needed); or,
// with q 0, the windows' own figures alone, called as throughput is.
type latencyMetric struct {
	name   string // as calls: names it
	q      float64
	window func(WindowFigures) float64
}

// latencyMetrics are the calls of the latency windows every step makes
// when the run has them, in order: p50 and p99 of the counted windows'
// corrected histograms merged, the figures the table shows, and the
// fixed-rate cost (server and database CPU-µs per request, or per
// completed flow for a flow case: callCost), each window's
// own figure (q 0: called like throughput, per window).
var latencyMetrics = []latencyMetric{
	{plan.MetricP50, 0.50, func(w WindowFigures) float64 { return w.Latency.P50 }},
	{plan.MetricP99, 0.99, func(w WindowFigures) float64 { return w.Latency.P99 }},
	{plan.MetricCost, 0, callCost},
}

// latencySides is one latency metric of two latency cells as the call
// compares them: every counted window's distribution, with its round; a
// metric with no quantile, its per-process values (sidesOf).
func latencySides(from, to Cell, lm latencyMetric) stats.SidePair {
	if lm.name == plan.MetricCost {
		from, to = costCell(from), costCell(to)
	}
	if lm.q == 0 {
		return sidesOf(from, to, lm.window)
	}
	side := func(c Cell) stats.Side {
		s := stats.Side{Valid: c.State == CellValid}
		for _, w := range c.PerWindow {
			if !w.Counted || lm.q > 0 && w.dist == nil {
				continue
			}
			s.Windows, s.Rounds, s.Dists = append(s.Windows, lm.window(w)), append(s.Rounds, w.Round), append(s.Dists, *w.dist)
		}
		return s
	}
	return stats.SidePair{From: side(from), To: side(to), Quantile: lm.q}
}

// latencyCounted reports whether a latency window enters its cell: it has
// a load result and the host did not disturb it (failed, contended,
// suspended, host_slow). A window whose server fell behind its offered
// rate (behind) or failed requests (invalid) counts: that is its latency
// result, not a reason to drop it (trap T24). Its unsent and unfinished
// requests are in its corrected histogram at their lower-bound latency
// (load schema 3), and latencyHist adds its other failures.
func latencyCounted(w *journal.Window) bool {
	if w.Load == nil {
		return false
	}
	for _, f := range []journal.Flag{journal.FlagFailed, journal.FlagContended, journal.FlagSuspended, journal.FlagHostSlow} {
		if w.HasFlag(f) {
			return false
		}
	}
	return true
}

// latencyResultFlag reports whether a flag on a latency window is part
// of its result (behind, invalid for its failures) rather than a
// disturbance: such a window counts and does not weigh against its
// cell's majority.
func latencyResultFlag(f journal.Flag) bool {
	return f == journal.FlagBehind || f == journal.FlagInvalid || f == journal.FlagCostWarming
}

// latencyHist is a latency window's corrected histogram with every failed
// request it does not hold recorded at the window's timeout: a failure
// is no faster than the slowest answer the client would have waited for,
// so it counts against the tail, not around it. From load schema 3 the
// histogram holds the unsent and unfinished requests at their lower
// bound; before, those are added at the timeout too.
func latencyHist(w *journal.Window, maxLatency time.Duration) (*hist.Histogram, error) {
	l := w.Load
	h, err := hist.Decode(l.LatencyHist)
	if err != nil {
		return nil, err
	}
	out := hist.New(maxLatency)
	out.Merge(h)
	missing := l.Failures()
	if l.SchemaVersion >= 3 {
		missing -= l.Errors["unfinished"] + l.Unsent
	}
	timeoutUS := int64(l.TimeoutSeconds * 1e6)
	if timeoutUS <= 0 {
		timeoutUS = maxLatency.Microseconds()
	}
	for range max(missing, 0) {
		out.RecordMicros(timeoutUS)
	}
	return out, nil
}

// distOf is a histogram's buckets as the pooled calls read them; nil
// when it is empty.
func distOf(h *hist.Histogram) *stats.Dist {
	var d stats.Dist
	h.Buckets(func(v, n int64) {
		d.Values, d.Counts = append(d.Values, float64(v)), append(d.Counts, n)
	})
	if len(d.Values) == 0 {
		return nil
	}
	return &d
}

// lowerIsBetter turns a verdict on a lower-is-better metric into the
// step's call: the interval is the same (a rise of the latency is a
// positive shift), and a rise is a loss.
func lowerIsBetter(v stats.Verdict) stats.Verdict {
	switch v.Call {
	case stats.CallGain:
		v.Call = stats.CallLoss
	case stats.CallLoss:
		v.Call = stats.CallGain
	}
	return v
}

// LatencyOpen reports whether more windows could decide a step's latency
// calls: one is undecided, or invalid only because a latency cell is
// insufficient while neither failed, is missing or has no valid window.
// The cells are read as the calls read them: as of the last look
// (Header.CallsThroughRound), and for the cost call as cost reads them
// (costCell: a cell whose windows fell short of the rate in a round or
// two is insufficient for cost, and more windows mend it).
func (m *Result) LatencyOpen(s Step) bool {
	for _, c := range []*Change{s.P50, s.P99, s.Cost} {
		if c == nil {
			continue
		}
		switch c.Call {
		case stats.CallUndecided:
			return true
		case stats.CallInvalid:
			from, to := m.latencyCellAtLook(s.From, s.Case, s.Concurrency), m.latencyCellAtLook(s.To, s.Case, s.Concurrency)
			if c == s.Cost {
				from, to = costCell(from), costCell(to)
			}
			if m.insufficientOnly(from, to) {
				return true
			}
		}
	}
	return false
}

// ThroughputOpen reports whether more windows could decide a step's
// throughput call: it is undecided, or invalid only because a side is
// insufficient (too few counted windows, or too many flagged ones) while
// neither side failed, is missing or has no valid window at all. The
// cells are read as the call read them, as of the last look
// (Header.CallsThroughRound): a cell insufficient at the look but valid
// with the windows measured since leaves the step open, not decided.
func (m *Result) ThroughputOpen(s Step) bool {
	switch s.Throughput.Call {
	case stats.CallUndecided:
		return true
	case stats.CallInvalid:
		return m.insufficientOnly(m.cellAtLook(s.From, s.Case, s.Concurrency), m.cellAtLook(s.To, s.Case, s.Concurrency))
	}
	return false
}

// insufficientOnly reports whether one of a step's two cells is
// insufficient and each is either that or valid.
func (m *Result) insufficientOnly(cells ...Cell) bool {
	states := make([]string, len(cells))
	for i, c := range cells {
		states[i] = c.State
	}
	return slices.Contains(states, CellInsufficient) && !slices.ContainsFunc(states, func(st string) bool {
		return st != CellValid && st != CellInsufficient
	})
}

// cellAtLook is the cell as the calls see it (throughRound at
// Header.CallsThroughRound); a missing one when the model has none.
func (m *Result) cellAtLook(stack, caseName string, conc int) Cell {
	c, ok := m.Cell(stack, caseName, conc)
	if !ok {
		return Cell{Stack: stack, Case: caseName, Concurrency: conc, State: CellMissing}
	}
	return throughRound(c, m.Header.CallsThroughRound)
}

// latencyCellAtLook is cellAtLook for the latency windows' cells.
func (m *Result) latencyCellAtLook(stack, caseName string, conc int) Cell {
	c, ok := m.LatencyCell(stack, caseName, conc)
	if !ok {
		return Cell{Stack: stack, Case: caseName, Concurrency: conc, State: CellMissing}
	}
	return throughRound(c, m.Header.CallsThroughRound)
}

// RoundsUpTo names rounds 1 to n: "round 1", "rounds 1-2".
func RoundsUpTo(n int) string {
	if n <= 1 {
		return "round 1"
	}
	return fmt.Sprintf("rounds 1-%d", n)
}
