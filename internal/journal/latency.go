package journal

import (
	"sort"
	"time"
)

// KindLatency is one try of a latency window (a Window record at an
// open-loop rate: Load.Rate), KindLatencyRate the decision of one case
// and concurrency's rate (LatencyRate).
const (
	KindLatency     Kind = "latency"
	KindLatencyRate Kind = "latency_rate"
)

// FlagBehind: a latency window whose server did not keep up with the
// offered rate: requests due and never sent or never answered, errors, or
// a served rate short of the offered one (run.judgeBehind). Its latency
// is a queue's, not the latency at that load: it is not counted.
const FlagBehind Flag = "behind"

// FlagCostWarming: a latency window whose server spent clearly more CPU
// in the window's first half than in its second at the same offered rate
// (run.judgeWarming): still warming up — a JIT compiling, caches filling
// (trap T19 for cost). The window is redone on the same process; one
// still flagged at the end counts for latency but not for cost.
const FlagCostWarming Flag = "cost_warming"

// LatencyRate is the offered rate of one case and concurrency's latency
// windows, fixed once and journaled before the first of them, so that a
// resumed run reuses it (docs/statistics.md, "Latency at a fixed rate").
type LatencyRate struct {
	Case        string    `json:"case"`
	Concurrency int       `json:"concurrency"`
	Time        time.Time `json:"time"`
	// RateRPS is the offered rate in requests per second; 0 when none
	// could be fixed (Reason says why): the cell's latency windows are
	// then failed.
	RateRPS float64 `json:"rate_rps"`
	// Share is the protocol's share (rate: 50%), 0 for an absolute rate.
	Share float64 `json:"share,omitempty"`
	// MedianRPS holds each stack's median closed-loop throughput of round
	// 1 that the share was taken of (counted windows, or any with a result
	// when a stack had none); Slowest names the lowest.
	MedianRPS map[string]float64 `json:"median_rps,omitempty"`
	Slowest   string             `json:"slowest,omitempty"`
	Reason    string             `json:"reason,omitempty"`
}

// LatencyRateOf returns the journaled rate of a case and concurrency.
func (r *Results) LatencyRateOf(cas string, concurrency int) (LatencyRate, bool) {
	for _, lr := range r.LatencyRates {
		if lr.Case == cas && lr.Concurrency == concurrency {
			return lr, true
		}
	}
	return LatencyRate{}, false
}

// FinalLatencyWindows returns the final try of every latency window key,
// in run order (Index, the closed-loop window each follows).
func (r *Results) FinalLatencyWindows() []Window {
	return finals(r.Latency)
}

// finals keeps the final try of every key, a later one winning, sorted by
// Index.
func finals(ws []Window) []Window {
	byKey := map[string]int{}
	var out []Window
	for _, w := range ws {
		if !w.Final {
			continue
		}
		if i, ok := byKey[w.Key]; ok {
			out[i] = w
			continue
		}
		byKey[w.Key] = len(out)
		out = append(out, w)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}
