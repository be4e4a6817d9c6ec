package load

import (
	"fmt"
	"slices"

	"github.com/stackbench/stackbench/internal/hist"
)

// mergeFlows merges the generators' flow figures (nil when the run was
// not a flow's): each generator ran its own users of one flow over the
// same window, so flows started, completed, failed (by "step: class")
// and unsent are summed, flows per second too (each over its own window,
// as Merge sums throughput), the whole-flow latency histograms are merged
// and the percentiles read off the merged one, and each step is merged
// like a mix's route, its share over the merged attempts. The CPU per
// flow is the generators' summed CPU (cpuSeconds) over the completed
// flows.
func mergeFlows(parts []*Result, attempts int64, cpuSeconds float64) (*FlowResult, error) {
	first := parts[0].Flow
	for i, p := range parts {
		if (p.Flow == nil) != (first == nil) {
			return nil, fmt.Errorf("merge load results: generator %d ran a flow and generator 1 did not, or the reverse", i+1)
		}
	}
	if first == nil {
		return nil, nil
	}
	out := &FlowResult{Name: first.Name, Failures: map[string]int64{}}
	var h *hist.Histogram
	steps := make([]*Result, len(parts))
	for i, p := range parts {
		f := p.Flow
		if f.Name != first.Name || !sameStepNames(f.Steps, first.Steps) {
			return nil, fmt.Errorf("merge load results: generator %d ran flow %q with other steps than generator 1's %q", i+1, f.Name, first.Name)
		}
		out.Started += f.Started
		out.Completed += f.Completed
		out.Failed += f.Failed
		out.Unsent += f.Unsent
		out.FlowsPerSecond += f.FlowsPerSecond
		for k, n := range f.Failures {
			out.Failures[k] += n
		}
		var err error
		if h, err = mergeInto(h, f.LatencyHist); err != nil {
			return nil, fmt.Errorf("merge load results: generator %d, flow %s: %w", i+1, f.Name, err)
		}
		// The steps are counted like a mix's routes: merged as those.
		steps[i] = &Result{Routes: f.Steps}
	}
	if out.Completed > 0 {
		out.GeneratorCPUMicrosPerFlow = cpuSeconds * 1e6 / float64(out.Completed)
	}
	out.LatencyMicros = summarize(h)
	var err error
	if out.LatencyHist, err = h.Encode(); err != nil {
		return nil, err
	}
	if out.Steps, err = mergeRoutes(steps, attempts); err != nil {
		return nil, err
	}
	for i := range out.Steps {
		out.Steps[i].WeightShare = 0
	}
	return out, nil
}

// sameStepNames reports whether two generators' steps are the same steps
// in the same order.
func sameStepNames(a, b []RouteResult) bool {
	return slices.EqualFunc(a, b, func(x, y RouteResult) bool { return x.Name == y.Name })
}
