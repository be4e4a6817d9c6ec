package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
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
