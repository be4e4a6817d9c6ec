package analysis

import (
	"fmt"
	"math"

	"github.com/stackbench/stackbench/internal/stats"
)

// A step's cost at two loads (issue 43, item 1; trap T26). The called
// cost is CPU per request at one fixed offered rate; at low load idle
// wake-ups, GC and the lack of batching fill the gaps (about twice
// saturation's CPU per request on this project's 2-vCPU machine), which
// dilutes some layers' effects and multiplies others'. So every step with
// a fixed-rate cost also shows the same stacks' cost near saturation:
// their closed-loop windows' CPU per request, where the server is as busy
// as the load generator can make it. Under closed_loop: first that is
// the rate rounds' windows (two a stack by default), an estimate without an interval, shown
// and never called; where the two changes disagree by more than the
// minimum effect the step says its layer's effect depends on load.

// CostLoads is a step's cost at its fixed rate and near saturation.
type CostLoads struct {
	// RateRPS is the offered rate the called cost was measured at.
	RateRPS float64 `json:"rate_rps"`
	// FromFixedMicros and ToFixedMicros are the two stacks' cost at that
	// rate: the median over their windows that count for cost, in CPU-µs
	// per request (server, own database backends, services).
	FromFixedMicros float64 `json:"from_fixed_us_per_req"`
	ToFixedMicros   float64 `json:"to_fixed_us_per_req"`
	// FromSatMicros and ToSatMicros are their closed-loop cells' median
	// cost, at the throughput FromSatRPS and ToSatRPS the closed loop
	// reached; SatWindows is the fewer of the two cells' counted windows.
	// Zero when a closed-loop cell has no counted window.
	FromSatMicros float64 `json:"from_saturation_us_per_req"`
	ToSatMicros   float64 `json:"to_saturation_us_per_req"`
	FromSatRPS    float64 `json:"from_saturation_rps"`
	ToSatRPS      float64 `json:"to_saturation_rps"`
	SatWindows    int     `json:"saturation_windows"`
	// FixedChangePct is the called change (Step.Cost's estimate);
	// SatChangePct the change of the saturation medians, without an
	// interval.
	FixedChangePct float64 `json:"fixed_change_pct"`
	SatChangePct   float64 `json:"saturation_change_pct"`
	// DependsOnLoad is true when the two changes are further apart than
	// the run's minimum effect; Note says it in words.
	DependsOnLoad bool   `json:"depends_on_load"`
	Note          string `json:"note,omitempty"`
	// PerFlow is set for a flow case: the costs are then CPU-µs per
	// completed flow and the rates flows per second, and the JSON names
	// them so (costLoadsFlowJSON).
	PerFlow bool `json:"per_flow,omitempty"`
}

// medianCost is the median cost of a cell's windows that count for cost
// (costCell), and how many there are.
func medianCost(c Cell) (float64, int) {
	var vs []float64
	for _, w := range costCell(c).PerWindow {
		if w.Counted && callCost(w) > 0 {
			vs = append(vs, callCost(w))
		}
	}
	med, err := stats.Quantile(vs, 0.5)
	if err != nil {
		return 0, 0
	}
	return med, len(vs)
}

// medianOf is the median of a cell's counted windows' metric; 0 without.
func medianOf(c Cell, metric func(WindowFigures) float64) float64 {
	med, err := stats.Quantile(c.CountedValues(metric), 0.5)
	if err != nil {
		return 0
	}
	return med
}

// addCostLoads sets each step's CostLoads where it has a fixed-rate cost.
func addCostLoads(r *Result) {
	rates := map[[2]any]float64{}
	if l := r.Header.Latency; l != nil {
		for _, rt := range l.Rates {
			rates[[2]any{rt.Case, rt.Concurrency}] = rt.RateRPS
		}
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		if s.Cost == nil {
			continue
		}
		lf, okf := r.LatencyCell(s.From, s.Case, s.Concurrency)
		lt, okt := r.LatencyCell(s.To, s.Case, s.Concurrency)
		if !okf || !okt {
			continue
		}
		cl := &CostLoads{RateRPS: rates[[2]any{s.Case, s.Concurrency}], FixedChangePct: s.Cost.EstimatePct, PerFlow: lf.Flow != nil || lt.Flow != nil}
		if cl.RateRPS == 0 {
			cl.RateRPS = medianOf(lf, callServed)
		}
		cl.FromFixedMicros, _ = medianCost(lf)
		cl.ToFixedMicros, _ = medianCost(lt)
		cf, okf := r.Cell(s.From, s.Case, s.Concurrency)
		ct, okt := r.Cell(s.To, s.Case, s.Concurrency)
		if okf && okt && cf.Counted > 0 && ct.Counted > 0 {
			cl.FromSatMicros, cl.ToSatMicros = medianOf(cf, callCost), medianOf(ct, callCost)
			cl.FromSatRPS, cl.ToSatRPS = medianOf(cf, callServed), medianOf(ct, callServed)
			cl.SatWindows = min(cf.Counted, ct.Counted)
		}
		if cl.FromSatMicros > 0 && cl.ToSatMicros > 0 {
			cl.SatChangePct = 100 * (cl.ToSatMicros/cl.FromSatMicros - 1)
			fixed, sat := math.Log1p(cl.FixedChangePct/100), math.Log1p(cl.SatChangePct/100)
			if s.Cost.Call != stats.CallInvalid && math.Abs(fixed-sat) > math.Log1p(r.Header.MinEffect) {
				cl.DependsOnLoad = true
				per, rate := "request", "req/s"
				if cl.PerFlow {
					per, rate = "completed flow", "flows/s"
				}
				cl.Note = fmt.Sprintf("the layer's effect on CPU per %s depends on load: %+.1f %% at %.0f %s, %+.1f %% near saturation (%.0f → %.0f %s, %s)",
					per, cl.FixedChangePct, cl.RateRPS, rate, cl.SatChangePct, cl.FromSatRPS, cl.ToSatRPS, rate, windowsText(cl.SatWindows))
			}
		}
		s.CostLoads = cl
	}
}

// windowsText is "one window a stack, no interval" or "median of N
// windows a stack".
func windowsText(n int) string {
	if n == 1 {
		return "one closed-loop window a stack, no interval"
	}
	return fmt.Sprintf("medians of %d closed-loop windows a stack, no interval", n)
}
