package run

import (
	"fmt"
	"strings"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
)

// A flow case's capacity search (issue 47, item 4; docs/capacity.md):
// the probes offer flows per second (load --flow -R), and the search
// judges flows where it judges requests — a completed flow is a success
// and its whole-flow latency from its scheduled start is the latency the
// SLO reads, a failed flow an error of its failing step's class, an
// unsent flow unsent — so that the search's rules (errors, unfinished,
// unsent, shortfall, the generator) hold unchanged, in flows. The SLOs on
// the flow's steps are judged besides (flowStepJudge). The journal keeps
// each probe's load result as the engine gave it.

// flowProbeResult is a flow window's load result as a capacity search
// reads it: its flows as its requests, its steps as its routes; r itself
// when it is not a flow's.
func flowProbeResult(r *load.Result) *load.Result {
	if r == nil || r.Flow == nil {
		return r
	}
	f := r.Flow
	out := *r
	out.Attempts, out.Successes, out.ThroughputRPS, out.Unsent = f.Completed+f.Failed, f.Completed, f.FlowsPerSecond, f.Unsent
	out.Errors = map[string]int64{"unfinished": 0}
	for k, n := range f.Failures {
		_, class, _ := strings.Cut(k, ": ")
		out.Errors[class] += n
	}
	out.LatencyMicros, out.LatencyHist = f.LatencyMicros, f.LatencyHist
	out.LatencyUncorrectedMicros, out.LatencyUncorrectedHist = nil, ""
	out.Routes, out.Flow = f.Steps, nil
	return &out
}

// flowStepJudge is the capacity search's judge of a flow's step SLOs
// (capacity.Config.Also): a probe fails when a step's latency at its
// SLO's percentile is above it, or the step has no latency; nil when the
// case has no step SLOs.
func flowStepJudge(steps []plan.StepSLO) func(*load.Result) []string {
	if len(steps) == 0 {
		return nil
	}
	return func(res *load.Result) []string {
		var why []string
		for _, st := range steps {
			slo := st.ParsedSLO()
			var route *load.RouteResult
			for i := range res.Routes {
				if res.Routes[i].Name == st.Step {
					route = &res.Routes[i]
				}
			}
			h, err := (*hist.Histogram)(nil), error(nil)
			if route != nil {
				h, err = hist.Decode(route.LatencyHist)
			}
			if route == nil || err != nil || h.Count() == 0 {
				why = append(why, fmt.Sprintf("step %s: no latency measured for its SLO %s", st.Step, st.SLO))
				continue
			}
			if l := h.PercentileMicros(slo.Percentile); l > slo.Latency.Microseconds() {
				why = append(why, fmt.Sprintf("step %s %s %s > %s", st.Step, slo.Name(), micros(l), slo.Latency))
			}
		}
		return why
	}
}

// capacityUnit is the unit of a capacity search's rates: flows per
// second for a flow case.
func capacityUnit(flow bool) string {
	if flow {
		return "flows/s"
	}
	return "req/s"
}
