package analysis

import (
	"fmt"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// A mix's step is called on the mix (its cells are the mix's windows, like
// any case's); inside it, each route's share of the step is shown too: the
// route's p50 and p99 from its own histograms, pooled over the counted
// windows like the step's latency calls, with stats.DecidePooled's
// bootstrap interval over rounds, and each side's error share.
// They stay outside the run's false-call family (shown, not called) unless
// the mix asks for them (mix: {call_routes: true}): then they are called
// with the step's metrics, in one family.

// The windows a route's step is read from (RouteStep.Source).
const (
	// RouteSourceLatency: the latency windows (protocol latency:), at one
	// offered rate, their latency corrected for coordinated omission.
	RouteSourceLatency = "latency_windows"
	// RouteSourceClosedLoop: the closed-loop windows, when the run has no
	// latency windows: uncorrected, at whatever rate each stack ran.
	RouteSourceClosedLoop = "closed_loop"
)

// RouteStep is one route of a mix inside a step: its latency calls and
// each side's figures. The mix's own calls are the step's.
type RouteStep struct {
	Name string `json:"name"`
	// Source is the windows the figures come from: RouteSourceLatency or
	// RouteSourceClosedLoop.
	Source string `json:"source"`
	// Called is true when the route's calls are in the run's false-call
	// family (the mix's call_routes); otherwise P50 and P99 are
	// stats.CallNotCalled with their estimate and interval at α.
	Called bool `json:"called"`
	// P50 and P99 are the changes of the route's pooled percentiles
	// (every request of the route in the counted windows, failures at the
	// timeout), lower-is-better.
	P50 Change `json:"p50"`
	P99 Change `json:"p99"`
	// FromP50Micros … ToP99Micros are the two sides' pooled figures.
	FromP50Micros float64 `json:"from_p50_us"`
	ToP50Micros   float64 `json:"to_p50_us"`
	FromP99Micros float64 `json:"from_p99_us"`
	ToP99Micros   float64 `json:"to_p99_us"`
	// FromErrorRate and ToErrorRate are each side's failed share of the
	// route's attempts over the counted windows (0 to 1); shown, not
	// called.
	FromErrorRate float64 `json:"from_error_rate"`
	ToErrorRate   float64 `json:"to_error_rate"`
}

// routeWindow is one route of a mix in one window, as the routes' steps
// and thresholds read it.
type routeWindow struct {
	name      string
	attempts  int64
	failures  int64
	errorRate float64
	// throughputRPS is the route's successes per second of the window.
	throughputRPS float64
	// dist is the route's histogram with its failures at the timeout
	// (routeHist); nil when empty or unreadable.
	dist *stats.Dist
}

// routeWindows reads a window's routes; nil when it is not a mix's.
func routeWindows(w *journal.Window, maxLatency time.Duration) []routeWindow {
	if w.Load == nil || len(w.Load.Routes) == 0 {
		return nil
	}
	out := make([]routeWindow, 0, len(w.Load.Routes))
	for _, r := range w.Load.Routes {
		rw := routeWindow{name: r.Name, attempts: r.Attempts, failures: max(r.Attempts-r.Successes, 0), throughputRPS: r.ThroughputRPS}
		if r.Attempts > 0 {
			rw.errorRate = float64(rw.failures) / float64(r.Attempts)
		}
		if h, err := routeHist(w.Load, r, maxLatency); err == nil {
			rw.dist = distOf(h)
		}
		out = append(out, rw)
	}
	return out
}

// routeHist is a route's histogram with its failures it does not hold at
// the window's timeout, as latencyHist does for the whole: a failed
// request is no faster than the longest the client would have waited.
// Its unfinished requests are in it at their lower bound from load
// schema 3.
func routeHist(l *load.Result, r load.RouteResult, maxLatency time.Duration) (*hist.Histogram, error) {
	h, err := hist.Decode(r.LatencyHist)
	if err != nil {
		return nil, err
	}
	out := hist.New(maxLatency)
	out.Merge(h)
	missing := r.Attempts - r.Successes
	if l.SchemaVersion >= 3 {
		missing -= r.Errors["unfinished"]
	}
	timeoutUS := int64(l.TimeoutSeconds * 1e6)
	if timeoutUS <= 0 {
		timeoutUS = maxLatency.Microseconds()
	}
	for range max(missing, 0) {
		out.RecordMicros(timeoutUS)
	}
	return out, nil
}

// route returns the window's route of that name; nil when it has none.
func (w WindowFigures) route(name string) *routeWindow {
	for i := range w.routes {
		if w.routes[i].name == name {
			return &w.routes[i]
		}
	}
	return nil
}

// routeMetrics are the calls made of each route of a mix, in order.
var routeMetrics = []struct {
	name string
	q    float64
}{{plan.MetricP50, 0.50}, {plan.MetricP99, 0.99}}

// routeAt places a route pair: the step, the route's index in its
// Routes, and the metric's in routeMetrics.
type routeAt struct{ step, route, metric int }

// routePairs lists the route pairs of every mix step, routeMetrics for
// each route, from the latency cells when the run has them, else from the
// closed-loop cells; and places each. The steps get their Routes (names,
// source, figures) here; the changes are set by setRouteChanges.
func routePairs(steps []Step, cells, latency [][2]Cell, cases []CaseInfo) ([]stats.SidePair, []routeAt) {
	callRoutes := map[string]bool{}
	for _, ci := range cases {
		callRoutes[ci.Name] = ci.CallRoutes
	}
	var pairs []stats.SidePair
	var at []routeAt
	for i := range steps {
		pair, source := cells[i], RouteSourceClosedLoop
		if latency != nil {
			pair, source = latency[i], RouteSourceLatency
		}
		names := routeNames(pair[0], pair[1])
		if len(names) == 0 {
			continue
		}
		called := callRoutes[steps[i].Case]
		steps[i].Routes = make([]RouteStep, len(names))
		for j, name := range names {
			rs := RouteStep{Name: name, Source: source, Called: called}
			from, to := routeSide(pair[0], name, 0.5), routeSide(pair[1], name, 0.5)
			rs.FromP50Micros, rs.ToP50Micros = pooledOf(from.Dists, 0.5), pooledOf(to.Dists, 0.5)
			rs.FromP99Micros, rs.ToP99Micros = pooledOf(from.Dists, 0.99), pooledOf(to.Dists, 0.99)
			rs.FromErrorRate, rs.ToErrorRate = routeErrorRate(pair[0], name), routeErrorRate(pair[1], name)
			steps[i].Routes[j] = rs
			for k, rm := range routeMetrics {
				pairs = append(pairs, stats.SidePair{From: routeSide(pair[0], name, rm.q), To: routeSide(pair[1], name, rm.q), Quantile: rm.q, Shown: !called})
				at = append(at, routeAt{i, j, k})
			}
		}
	}
	return pairs, at
}

// setRouteChanges sets the route steps' changes from their verdicts (vs,
// in the order of at), with the cells they were read from.
func setRouteChanges(steps []Step, cells, latency [][2]Cell, at []routeAt, vs []stats.Verdict) {
	for n, a := range at {
		pair := cells[a.step]
		if latency != nil {
			pair = latency[a.step]
		}
		rs := &steps[a.step].Routes[a.route]
		c := changeOf(lowerIsBetter(vs[n]), pair[0], pair[1])
		c.LowerIsBetter = true
		if c.Call == stats.CallNotCalled && !strings.HasPrefix(c.Reason, stats.NotCalledInvalid) {
			c.Reason = fmt.Sprintf("shown, not called: a mix's routes stay outside the run's false-call family unless the mix says call_routes: true; the estimate and its interval at α on their own (%s)", c.Reason)
		}
		if routeMetrics[a.metric].name == plan.MetricP50 {
			rs.P50 = c
		} else {
			rs.P99 = c
		}
	}
}

// routeNames are the routes of the first counted window of either cell
// that has any, in the mix's order.
func routeNames(cells ...Cell) []string {
	for _, c := range cells {
		for _, w := range c.PerWindow {
			if !w.Counted || len(w.routes) == 0 {
				continue
			}
			names := make([]string, len(w.routes))
			for i, r := range w.routes {
				names[i] = r.name
			}
			return names
		}
	}
	return nil
}

// routeSide is one route of a cell as a pooled call compares it: each
// counted window's distribution of the route, with its round and its own
// q-quantile.
func routeSide(c Cell, name string, q float64) stats.Side {
	s := stats.Side{Valid: c.State == CellValid}
	for _, w := range c.PerWindow {
		if !w.Counted {
			continue
		}
		r := w.route(name)
		if r == nil || r.dist == nil {
			continue
		}
		s.Windows = append(s.Windows, stats.PooledQuantile([]stats.Dist{*r.dist}, q))
		s.Rounds = append(s.Rounds, w.Round)
		s.Dists = append(s.Dists, *r.dist)
	}
	return s
}

// pooledOf is the q-quantile of the distributions merged; 0 without any.
func pooledOf(ds []stats.Dist, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	return stats.PooledQuantile(ds, q)
}

// routeErrorRate is a route's failed share of its attempts over a cell's
// counted windows.
func routeErrorRate(c Cell, name string) float64 {
	var attempts, failures int64
	for _, w := range c.PerWindow {
		if r := w.route(name); w.Counted && r != nil {
			attempts += r.attempts
			failures += r.failures
		}
	}
	if attempts == 0 {
		return 0
	}
	return float64(failures) / float64(attempts)
}

// routeChanges are a step's route changes, for the passes over every
// change of a step (the family's size, holding calls until a look).
func (s *Step) routeChanges() []*Change {
	var out []*Change
	for i := range s.Routes {
		out = append(out, &s.Routes[i].P50, &s.Routes[i].P99)
	}
	return out
}
