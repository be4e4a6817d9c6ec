package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
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
	n := c.SearchCount()
	switch {
	case n > 1:
		fmt.Fprintf(w, "  %d searches per stack × case, each in a fresh process, the stacks taking turns in a balanced order; a capacity is the median of its searches', a capacity step compares the two stacks' searches\n", n)
	case len(p.Stacks) > 1:
		fmt.Fprintf(w, "  1 search per stack × case\n")
	}
	switch {
	case len(p.Stacks) > 1 && stats.MinP(n, n) > report.CapacityAlpha:
		fmt.Fprintf(w, "  note: with %s a side no capacity step can have a finite %g %% interval; give capacity: searches: %d or more\n",
			countNoun(n, "search"), 100*(1-report.CapacityAlpha), minSearches(report.CapacityAlpha))
	case len(p.Stacks) > 1 && stats.MinP(n, n-1) > report.CapacityAlpha:
		fmt.Fprintf(w, "  note: a search that confirms nothing is dropped, and with %d against %d no capacity step can have a finite %g %% interval; give capacity: searches: %d to survive one lost search\n",
			n, n-1, 100*(1-report.CapacityAlpha), n+1)
	}
	if calls := capacityCalls(p); calls > 1 && stats.MinP(n, n) > report.CapacityAlpha/float64(calls) {
		fmt.Fprintf(w, "  note: the capacity steps are a false-call family of %d calls; with %s a side the smallest p-value (%.3g) is above %g ÷ %d, so no capacity step could be called a gain or a loss; give capacity: searches: %d or more, or fewer cases with an SLO\n",
			calls, countNoun(n, "search"), stats.MinP(n, n), report.CapacityAlpha, calls, minSearches(report.CapacityAlpha/float64(calls)))
	}
	fmt.Fprintf(w, "  open-loop probes of %s after %s of warm-up, %d connections, from %g %% of the cell's closed-loop throughput;\n",
		c.Probe, c.Warmup, c.Connections, 100*c.StartFraction)
	fmt.Fprintf(w, "  pass: the SLO, errors ≤ %g %%; bisect to %g %%; %s; a failure believed after %s\n",
		100*c.MaxErrorShare, 100*c.Resolution, countNoun(c.Confirmations, "confirmation window"), countNoun(c.Retries, "repeat"))
}

// capacityCalls is the size of the capacity steps' false-call family:
// one call per step and case with an SLO.
func capacityCalls(p *plan.Plan) int {
	var names []string
	from := map[string]string{}
	for _, s := range p.Stacks {
		names = append(names, s.Name)
		from[s.Name] = s.From
	}
	return len(analysis.StepPairs(names, from)) * len(p.Capacity.Cases)
}

// minSearches is the fewest searches a side that give a capacity step a
// finite interval at alpha.
func minSearches(alpha float64) int {
	for k := 1; ; k++ {
		if stats.MinP(k, k) <= alpha {
			return k
		}
	}
}

// capacityEstimate is the capacity phase's part of the plan's estimate.
func capacityEstimate(p *plan.Plan) string {
	if p.Capacity == nil {
		return ""
	}
	return ", capacity searches up to " + roundEstimate(p.EstimateCapacity()).String()
}
