package load

import (
	"fmt"

	"github.com/stackbench/stackbench/internal/hist"
)

// routeTally is what a worker counted of one route of a mix in the
// measured window: the same figures as the run's, kept apart per route.
// Only the worker's goroutine touches it.
type routeTally struct {
	successes int64
	meas      tally
	hSucc     *hist.Histogram
	hErr      *hist.Histogram
}

// newRouteTallies returns a worker's tallies for a mix's routes (nil
// without a mix: the single-route path then only tests for nil).
func newRouteTallies(r *run) []routeTally {
	if len(r.routes) == 0 {
		return nil
	}
	out := make([]routeTally, len(r.routes))
	for i := range out {
		out[i].hSucc, out[i].hErr = hist.New(r.histMax), hist.New(r.histMax)
	}
	return out
}

// count counts one outcome of the window for the route (its latency goes
// into the route's histograms: worker.hists).
func (t *routeTally) count(ok bool, class errorClass, status int) {
	switch {
	case ok:
		t.successes++
	case status > 0:
		t.meas.status[status]++
	default:
		t.meas.errs[class]++
	}
}

// mergeRouteHists adds the routes' histograms of every worker into the
// whole's succ and errs: in a mix, the workers' own hold only what had no
// route.
func (r *run) mergeRouteHists(succ, errs *hist.Histogram) {
	for _, w := range r.workers {
		for i := range w.routes {
			succ.Merge(w.routes[i].hSucc)
			errs.Merge(w.routes[i].hErr)
		}
	}
}

// RouteResult is one route of a mix in the measured window, counted like
// the whole (Result): the requests of the route whose outcome fell in
// the window, its successes, failure classes and latency.
type RouteResult struct {
	Name   string `json:"name"`
	Weight int    `json:"weight"`
	// WeightShare is the route's weight over the sum of the weights;
	// Share is its part of the window's attempts (the achieved ratio).
	WeightShare   float64          `json:"weight_share"`
	Share         float64          `json:"share"`
	Attempts      int64            `json:"attempts"`
	Successes     int64            `json:"successes"`
	ThroughputRPS float64          `json:"throughput_rps"`
	Errors        map[string]int64 `json:"errors"`
	// LatencyMicros is the latency of the route's successes, measured
	// like Result.LatencyMicros (in open loop from the intended send; the
	// route's unfinished requests at their lower bound, as there).
	// Requests never sent (Result.Unsent) had no route yet and are only
	// in the whole's.
	LatencyMicros      Latency `json:"latency_us"`
	ErrorLatencyMicros Latency `json:"error_latency_us"`
	LatencyHist        string  `json:"latency_hist"`
	ErrorLatencyHist   string  `json:"error_latency_hist"`
}

// routeResults merges the workers' route tallies; nil without a mix.
func (r *run) routeResults(windowSeconds float64, attempts int64) ([]RouteResult, error) {
	if len(r.routes) == 0 {
		return nil, nil
	}
	var sum int
	for _, m := range r.routes {
		sum += m.Weight
	}
	out := make([]RouteResult, len(r.routes))
	for i, m := range r.routes {
		succ, errs := hist.New(r.histMax), hist.New(r.histMax)
		var t tally
		rr := RouteResult{Name: m.Name, Weight: m.Weight, Errors: map[string]int64{}}
		if sum > 0 {
			rr.WeightShare = float64(m.Weight) / float64(sum)
		}
		for _, w := range r.workers {
			rt := &w.routes[i]
			rr.Successes += rt.successes
			for c, n := range rt.meas.errs {
				t.errs[c] += n
			}
			for s, n := range rt.meas.status {
				t.status[s] += n
			}
			succ.Merge(rt.hSucc)
			errs.Merge(rt.hErr)
		}
		rr.Attempts = rr.Successes + t.addErrors(rr.Errors)
		rr.ThroughputRPS = float64(rr.Successes) / windowSeconds
		if err := rr.finish(succ, errs, attempts); err != nil {
			return nil, err
		}
		out[i] = rr
	}
	return out, nil
}

// finish sets a route's share of the window's attempts and its latency
// figures and histograms from its merged successes and failures.
func (rr *RouteResult) finish(succ, errs *hist.Histogram, attempts int64) error {
	if attempts > 0 {
		rr.Share = float64(rr.Attempts) / float64(attempts)
	}
	rr.LatencyMicros, rr.ErrorLatencyMicros = summarize(succ), summarize(errs)
	var err error
	if rr.LatencyHist, err = succ.Encode(); err != nil {
		return err
	}
	rr.ErrorLatencyHist, err = errs.Encode()
	return err
}

// addErrors writes t's failure classes into errs as Result.Errors names
// them (the first classes always, the others and statuses when counted)
// and returns their sum.
func (t *tally) addErrors(errs map[string]int64) int64 {
	var n int64
	for c, k := range t.errs {
		if c < alwaysReported || k > 0 {
			errs[classNames[c]] = k
		}
		n += k
	}
	for s, k := range t.status {
		if k > 0 {
			errs[statusKey(s)] = k
			n += k
		}
	}
	return n
}

// mergeRoutes merges the generators' routes of one mix, route by route
// (each generator sends the whole mix): counts summed, histograms merged,
// shares over the merged attempts.
func mergeRoutes(parts []*Result, attempts int64) ([]RouteResult, error) {
	if len(parts[0].Routes) == 0 {
		return nil, nil
	}
	out := make([]RouteResult, len(parts[0].Routes))
	for i, first := range parts[0].Routes {
		rr := RouteResult{Name: first.Name, Weight: first.Weight, WeightShare: first.WeightShare, Errors: map[string]int64{}}
		var succ, errs *hist.Histogram
		for g, p := range parts {
			if len(p.Routes) != len(parts[0].Routes) || p.Routes[i].Name != first.Name {
				return nil, fmt.Errorf("merge load results: generator %d's mix has other routes than generator 1's", g+1)
			}
			pr := p.Routes[i]
			rr.Attempts += pr.Attempts
			rr.Successes += pr.Successes
			rr.ThroughputRPS += pr.ThroughputRPS
			for k, n := range pr.Errors {
				rr.Errors[k] += n
			}
			var err error
			if succ, err = mergeInto(succ, pr.LatencyHist); err != nil {
				return nil, fmt.Errorf("merge load results: generator %d, route %s: %w", g+1, first.Name, err)
			}
			if errs, err = mergeInto(errs, pr.ErrorLatencyHist); err != nil {
				return nil, fmt.Errorf("merge load results: generator %d, route %s: %w", g+1, first.Name, err)
			}
		}
		if err := rr.finish(succ, errs, attempts); err != nil {
			return nil, err
		}
		out[i] = rr
	}
	return out, nil
}
