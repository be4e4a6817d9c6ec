package analysis

import (
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
)

// RouteFigures is one route of a mix's cell over the cell's counted
// windows: the mix as a whole is the cell (its steps are called like any
// case's); these say what each route did inside it.
type RouteFigures struct {
	Name string `json:"name"`
	// WeightShare is the route's weight over the mix's weights; Share its
	// part of the counted windows' attempts (the achieved ratio).
	WeightShare float64 `json:"weight_share"`
	Share       float64 `json:"share"`
	// ThroughputRPS is the route's successes over the counted windows'
	// summed length; ErrorRate its failed share of its attempts.
	ThroughputRPS float64 `json:"throughput_rps"`
	Attempts      int64   `json:"attempts"`
	ErrorRate     float64 `json:"error_rate"`
	// Errors are its failure classes summed over the counted windows.
	Errors map[string]int64 `json:"errors,omitempty"`
	// Latency is from the route's merged histograms.
	Latency Latency `json:"latency_us"`
}

// routeFigures sums a mix's routes over the counted windows; nil when the
// windows are not a mix's. A window whose routes differ from the first
// counted one's (another mix under the same name) is left out.
func routeFigures(counted []*journal.Window, maxLatency time.Duration) []RouteFigures {
	var out []RouteFigures
	var hists []*hist.Histogram
	var seconds float64
	var attempts int64
	for _, w := range counted {
		if w.Load == nil || len(w.Load.Routes) == 0 {
			continue
		}
		if out == nil {
			for _, r := range w.Load.Routes {
				out = append(out, RouteFigures{Name: r.Name, WeightShare: r.WeightShare, Errors: map[string]int64{}})
				hists = append(hists, hist.New(maxLatency))
			}
		}
		if !sameRoutes(out, w) {
			continue
		}
		seconds += w.Load.DurationSeconds
		for i, r := range w.Load.Routes {
			out[i].Attempts += r.Attempts
			out[i].ThroughputRPS += float64(r.Successes) // divided below
			attempts += r.Attempts
			for k, n := range r.Errors {
				if n > 0 {
					out[i].Errors[k] += n
				}
			}
			if h, err := hist.Decode(r.LatencyHist); err == nil {
				hists[i].Merge(h)
			}
		}
	}
	for i := range out {
		f := &out[i]
		successes := f.ThroughputRPS
		if seconds > 0 {
			f.ThroughputRPS = successes / seconds
		}
		if f.Attempts > 0 {
			f.ErrorRate = 1 - successes/float64(f.Attempts)
		}
		if attempts > 0 {
			f.Share = float64(f.Attempts) / float64(attempts)
		}
		if hists[i].Count() > 0 {
			f.Latency = latencyOf(hists[i])
		}
	}
	return out
}

// sameRoutes reports whether w's load result has the routes of a, in
// a's order.
func sameRoutes(a []RouteFigures, w *journal.Window) bool {
	b := w.Load.Routes
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// FlowFigures is a flow's cell over its counted windows: flows, not
// requests (the cell's throughput and latency are its steps' requests).
type FlowFigures struct {
	// FlowsPerSecond is the completed flows over the counted windows'
	// summed length; Failed counts the failed ones, by "step: class".
	FlowsPerSecond float64          `json:"flows_per_s"`
	Completed      int64            `json:"completed"`
	Failed         int64            `json:"failed"`
	Failures       map[string]int64 `json:"failures,omitempty"`
	// Latency is a completed flow's, from the merged histograms.
	Latency Latency `json:"latency_us"`
	// Steps are each step's requests, like a mix's routes.
	Steps []RouteFigures `json:"steps"`
}

// flowFigures sums a flow's counted windows; nil when they are not a
// flow's.
func flowFigures(counted []*journal.Window, maxLatency time.Duration) *FlowFigures {
	var ff *FlowFigures
	h := hist.New(maxLatency)
	var seconds float64
	var stepWindows []*journal.Window
	for _, w := range counted {
		if w.Load == nil || w.Load.Flow == nil {
			continue
		}
		if ff == nil {
			ff = &FlowFigures{Failures: map[string]int64{}}
		}
		f := w.Load.Flow
		seconds += w.Load.DurationSeconds
		ff.Completed += f.Completed
		ff.Failed += f.Failed
		for k, n := range f.Failures {
			ff.Failures[k] += n
		}
		if d, err := hist.Decode(f.LatencyHist); err == nil {
			h.Merge(d)
		}
		// The steps, read as a mix's routes.
		sw := *w
		l := *w.Load
		l.Routes = f.Steps
		sw.Load = &l
		stepWindows = append(stepWindows, &sw)
	}
	if ff == nil {
		return nil
	}
	if seconds > 0 {
		ff.FlowsPerSecond = float64(ff.Completed) / seconds
	}
	if h.Count() > 0 {
		ff.Latency = latencyOf(h)
	}
	ff.Steps = routeFigures(stepWindows, maxLatency)
	return ff
}
