package journal

import (
	"encoding/json"
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
	// PerFlow is set for a flow case: its windows offer flows, so RateRPS
	// and MedianRPS are completed flows per second, and the record names
	// them so (rate_flows_per_s, median_flows_per_s; MarshalJSON).
	PerFlow bool `json:"per_flow,omitempty"`
}

// latencyRateFlowJSON is LatencyRate as the journal writes a flow case's:
// the same fields, named in flows per second.
type latencyRateFlowJSON struct {
	Case        string             `json:"case"`
	Concurrency int                `json:"concurrency"`
	Time        time.Time          `json:"time"`
	RateRPS     float64            `json:"rate_flows_per_s"`
	Share       float64            `json:"share,omitempty"`
	MedianRPS   map[string]float64 `json:"median_flows_per_s,omitempty"`
	Slowest     string             `json:"slowest,omitempty"`
	Reason      string             `json:"reason,omitempty"`
	PerFlow     bool               `json:"per_flow,omitempty"`
}

// latencyRatePlain is LatencyRate without its methods.
type latencyRatePlain LatencyRate

// MarshalJSON writes a flow case's rate under names in flows per second.
func (lr LatencyRate) MarshalJSON() ([]byte, error) {
	if lr.PerFlow {
		return json.Marshal(latencyRateFlowJSON(lr))
	}
	return json.Marshal(latencyRatePlain(lr))
}

// UnmarshalJSON reads either form MarshalJSON writes.
func (lr *LatencyRate) UnmarshalJSON(data []byte) error {
	var p latencyRatePlain
	var f latencyRateFlowJSON
	perFlow, err := DecodePerFlow(data, &p, &f)
	if perFlow {
		*lr = LatencyRate(f)
	} else {
		*lr = LatencyRate(p)
	}
	return err
}

// DecodePerFlow decodes a record written in two forms — a request
// case's, and a flow case's with its rates named per flow and
// per_flow: true — into flow when data says per_flow, else into plain,
// and says which.
func DecodePerFlow(data []byte, plain, flow any) (perFlow bool, err error) {
	var probe struct {
		PerFlow bool `json:"per_flow"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return false, err
	}
	if probe.PerFlow {
		return true, json.Unmarshal(data, flow)
	}
	return false, json.Unmarshal(data, plain)
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
