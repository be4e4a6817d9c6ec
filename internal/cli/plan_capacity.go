package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
)

// printCapacity shows the plan's capacity phase, when it has one.
func printCapacity(w io.Writer, p *plan.Plan) {
	c := p.Capacity
	if c == nil {
		return
	}
	var slos []string
	for _, cc := range c.Cases {
		slos = append(slos, cc.Case+" "+cc.SLO)
	}
	fmt.Fprintf(w, "\ncapacity at an SLO, after the windows: %s × %d stacks, each search within %s\n", strings.Join(slos, ", "), len(p.Stacks), c.Budget)
	fmt.Fprintf(w, "  open-loop probes of %s after %s of warm-up, %d connections, from %g %% of the cell's closed-loop throughput;\n",
		c.Probe, c.Warmup, c.Connections, 100*c.StartFraction)
	fmt.Fprintf(w, "  pass: the SLO, errors ≤ %g %%; bisect to %g %%; %s; a failure believed after %s\n",
		100*c.MaxErrorShare, 100*c.Resolution, countNoun(c.Confirmations, "confirmation window"), countNoun(c.Retries, "repeat"))
}

// capacityEstimate is the capacity phase's part of the plan's estimate.
func capacityEstimate(p *plan.Plan) string {
	if p.Capacity == nil {
		return ""
	}
	return ", capacity searches up to " + roundEstimate(p.EstimateCapacity()).String()
}

// printCapacitySteps prints each case's capacities and the capacity
// steps' calls with what they rest on, after a run with a capacity phase.
func printCapacitySteps(w io.Writer, m *report.Model) {
	cs := m.Capacity
	if cs == nil {
		return
	}
	fmt.Fprintf(w, "\nCapacity at the SLO (open-loop searches; docs/capacity.md):\n")
	for _, c := range cs.Cases {
		fmt.Fprintf(w, "  %s, SLO %s:\n", c.Case, c.SLO)
		for _, r := range c.Rows {
			switch {
			case r.Status == capacity.StatusConfirmed && r.AtCapacity != nil:
				fmt.Fprintf(w, "      %-14s %.1f req/s, p99 %.2f ms at it, %.2f cores (bracket %.1f–%.1f)\n", r.Stack, r.CapacityRPS,
					float64(r.AtCapacity.LatencyMicros.P99)/1e3, r.ServerCores, r.LastPassRPS, r.FirstFailRPS)
			default:
				fmt.Fprintf(w, "      %-14s no capacity: %s (bracket %.1f–%.1f req/s, 0: none) %s\n", r.Stack, r.Status, r.LastPassRPS, r.FirstFailRPS, r.Error)
			}
		}
	}
	for _, s := range cs.Steps {
		fmt.Fprintf(w, "  %s → %s %s: %s\n", s.From, s.To, s.Case, report.CallText(s.Capacity))
	}
}
