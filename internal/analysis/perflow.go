package analysis

import (
	"encoding/json"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// A flow case at a fixed rate (issue 47, item 4; docs/statistics.md,
// "Latency at a fixed rate"). Its latency windows offer flows, not
// requests: the rate is completed flows per second (share × the slowest
// stack's closed-loop median flows per second), a window's latency is the
// whole flow's from its scheduled start, and its cost is CPU per
// completed flow. A failed flow is never throughput. Each step's own
// figures stay in the cell's Flow.Steps.

// servedRate is what a window served for the rate and the cost: completed
// flows per second for a flow, else successful requests per second.
func servedRate(l *load.Result) float64 {
	if l.Flow != nil {
		return l.Flow.FlowsPerSecond
	}
	return l.ThroughputRPS
}

// callCost is the cost a window's cost call and cost loads read: CPU-µs
// per completed flow for a flow's window, per request otherwise.
func callCost(w WindowFigures) float64 {
	if w.PerFlow {
		return w.CostMicrosPerFlow
	}
	return w.CostMicros
}

// callServed is the load a window's cost was measured at, in the unit of
// callCost: completed flows per second, or requests per second.
func callServed(w WindowFigures) float64 {
	if w.PerFlow {
		return w.FlowsPerSecond
	}
	return w.ThroughputRPS
}

// latencyWindowHist is a latency window's histogram for its cell and
// calls: a flow's whole-flow latency (flowLatencyHist), else the
// corrected request latency with its failures (latencyHist).
func latencyWindowHist(w *journal.Window, maxLatency time.Duration) (*hist.Histogram, error) {
	if w.Load.Flow != nil {
		return flowLatencyHist(w.Load, maxLatency)
	}
	return latencyHist(w, maxLatency)
}

// flowLatencyHist is a flow window's whole-flow latency: its completed
// flows from their scheduled start (open model) and its unsent flows at
// the time they had waited (the engine records both), with every failed
// flow — the unfinished ones included — at the window's timeout, as
// latencyHist does for a failed request: a flow that failed counts
// against the tail, never around it.
func flowLatencyHist(l *load.Result, maxLatency time.Duration) (*hist.Histogram, error) {
	h, err := hist.Decode(l.Flow.LatencyHist)
	if err != nil {
		return nil, err
	}
	out := hist.New(maxLatency)
	out.Merge(h)
	timeoutUS := int64(l.TimeoutSeconds * 1e6)
	if timeoutUS <= 0 {
		timeoutUS = maxLatency.Microseconds()
	}
	for range max(l.Flow.Failed, 0) {
		out.RecordMicros(timeoutUS)
	}
	return out, nil
}

// flowFailureShare is the failed share of a flow window's flows that
// ended in it.
func flowFailureShare(l *load.Result) float64 {
	f := l.Flow
	if n := f.Completed + f.Failed; n > 0 {
		return float64(f.Failed) / float64(n)
	}
	return 0
}

// latencyRateFlowJSON is LatencyRateInfo as the JSON writes a flow's:
// the same fields, named in flows per second.
type latencyRateFlowJSON struct {
	Case        string  `json:"case"`
	Concurrency int     `json:"concurrency"`
	RateRPS     float64 `json:"rate_flows_per_s"`
	Slowest     string  `json:"slowest,omitempty"`
	SlowestRPS  float64 `json:"slowest_flows_per_s,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	PerFlow     bool    `json:"per_flow,omitempty"`
}

// latencyRatePlain is LatencyRateInfo without its methods.
type latencyRatePlain LatencyRateInfo

// MarshalJSON writes a flow's rate under names in flows per second.
func (r LatencyRateInfo) MarshalJSON() ([]byte, error) {
	if r.PerFlow {
		return json.Marshal(latencyRateFlowJSON(r))
	}
	return json.Marshal(latencyRatePlain(r))
}

// UnmarshalJSON reads either form MarshalJSON writes.
func (r *LatencyRateInfo) UnmarshalJSON(data []byte) error {
	var p latencyRatePlain
	var f latencyRateFlowJSON
	perFlow, err := journal.DecodePerFlow(data, &p, &f)
	if perFlow {
		*r = LatencyRateInfo(f)
	} else {
		*r = LatencyRateInfo(p)
	}
	return err
}

// costLoadsFlowJSON is CostLoads as the JSON writes a flow's: the same
// fields, named per flow and in flows per second.
type costLoadsFlowJSON struct {
	RateRPS         float64 `json:"rate_flows_per_s"`
	FromFixedMicros float64 `json:"from_fixed_us_per_flow"`
	ToFixedMicros   float64 `json:"to_fixed_us_per_flow"`
	FromSatMicros   float64 `json:"from_saturation_us_per_flow"`
	ToSatMicros     float64 `json:"to_saturation_us_per_flow"`
	FromSatRPS      float64 `json:"from_saturation_flows_per_s"`
	ToSatRPS        float64 `json:"to_saturation_flows_per_s"`
	SatWindows      int     `json:"saturation_windows"`
	FixedChangePct  float64 `json:"fixed_change_pct"`
	SatChangePct    float64 `json:"saturation_change_pct"`
	DependsOnLoad   bool    `json:"depends_on_load"`
	Note            string  `json:"note,omitempty"`
	PerFlow         bool    `json:"per_flow,omitempty"`
}

// costLoadsPlain is CostLoads without its methods.
type costLoadsPlain CostLoads

// MarshalJSON writes a flow's cost loads under names per flow.
func (cl CostLoads) MarshalJSON() ([]byte, error) {
	if cl.PerFlow {
		return json.Marshal(costLoadsFlowJSON(cl))
	}
	return json.Marshal(costLoadsPlain(cl))
}

// UnmarshalJSON reads either form MarshalJSON writes.
func (cl *CostLoads) UnmarshalJSON(data []byte) error {
	var p costLoadsPlain
	var f costLoadsFlowJSON
	perFlow, err := journal.DecodePerFlow(data, &p, &f)
	if perFlow {
		*cl = CostLoads(f)
	} else {
		*cl = CostLoads(p)
	}
	return err
}
