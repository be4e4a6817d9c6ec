package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// routeOf is a journaled route whose every success took latencyUs.
func routeOf(t *testing.T, name string, weightShare float64, attempts, successes, latencyUs int64) load.RouteResult {
	t.Helper()
	h := hist.New(time.Minute)
	for range successes {
		h.RecordMicros(latencyUs)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]int64{}
	if attempts > successes {
		errs["status_500"] = attempts - successes
	}
	return load.RouteResult{Name: name, WeightShare: weightShare, Attempts: attempts, Successes: successes, Errors: errs, LatencyHist: enc}
}

// A mix's cell sums its routes over the counted windows only: shares of
// the attempts, throughput over the windows' length, failed shares, and
// latency from the merged histograms; an uncounted window is left out.
func TestCellRoutesOverCountedWindows(t *testing.T) {
	window := func(flags []journal.Flag, user, list load.RouteResult) journal.Window {
		return journal.Window{Flags: flags, Load: &load.Result{DurationSeconds: 2, LatencyHist: user.LatencyHist,
			Routes: []load.RouteResult{user, list}}}
	}
	ws := []journal.Window{
		window(nil, routeOf(t, "user", 0.75, 300, 300, 1000), routeOf(t, "list", 0.25, 100, 90, 8000)),
		window(nil, routeOf(t, "user", 0.75, 300, 300, 1000), routeOf(t, "list", 0.25, 100, 100, 8000)),
		window([]journal.Flag{journal.FlagContended}, routeOf(t, "user", 0.75, 9000, 9000, 50), routeOf(t, "list", 0.25, 1, 0, 50)),
	}
	c, _ := newCell("a", CaseInfo{Name: "storefront"}, 10, ws, time.Minute, false)
	if len(c.Routes) != 2 {
		t.Fatalf("routes %+v", c.Routes)
	}
	user, list := c.Routes[0], c.Routes[1]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	switch {
	case user.Name != "user" || !near(user.Share, 0.75) || !near(list.Share, 0.25) || list.WeightShare != 0.25:
		t.Errorf("shares: user %v, list %v (weight %v); want 0.75 and 0.25 of the counted windows' attempts", user.Share, list.Share, list.WeightShare)
	case !near(user.ThroughputRPS, 150) || !near(list.ThroughputRPS, 47.5):
		t.Errorf("throughput: user %v, list %v req/s; want 600 ÷ 4 s and 190 ÷ 4 s", user.ThroughputRPS, list.ThroughputRPS)
	case !near(list.ErrorRate, 0.05) || list.Errors["status_500"] != 10 || user.ErrorRate != 0:
		t.Errorf("failures: list %v %v, user %v; want 10 of 200 status_500", list.ErrorRate, list.Errors, user.ErrorRate)
	case user.Latency.P50 < 990 || user.Latency.P50 > 1010 || list.Latency.P99 < 7900 || list.Latency.P99 > 8100:
		t.Errorf("latency: user p50 %v, list p99 %v; want about 1,000 and 8,000 µs", user.Latency.P50, list.Latency.P99)
	}
	single, _ := newCell("a", CaseInfo{Name: "user"}, 10, []journal.Window{{Load: &load.Result{DurationSeconds: 1}}}, time.Minute, false)
	if single.Routes != nil {
		t.Errorf("a case of one route has routes %+v", single.Routes)
	}
}

// A flow's cell counts flows over its counted windows: flows per second,
// failures by step and class, the whole flow's latency, each step.
func TestCellFlowOverCountedWindows(t *testing.T) {
	h := hist.New(time.Minute)
	for range 10 {
		h.RecordMicros(20_000)
	}
	enc, _ := h.Encode()
	flow := func(completed, failed int64) *load.FlowResult {
		return &load.FlowResult{Completed: completed, Failed: failed, Failures: map[string]int64{"login: status_401": failed}, LatencyHist: enc,
			Steps: []load.RouteResult{routeOf(t, "login", 0, 2*completed+failed, 2*completed, 1000), routeOf(t, "me", 0, 2*completed, 2*completed, 3000)}}
	}
	ws := []journal.Window{
		{Load: &load.Result{DurationSeconds: 2, Flow: flow(100, 4)}},
		{Load: &load.Result{DurationSeconds: 2, Flow: flow(300, 0)}},
		{Flags: []journal.Flag{journal.FlagInvalid}, Load: &load.Result{DurationSeconds: 2, Flow: flow(9000, 9)}},
	}
	c, _ := newCell("a", CaseInfo{Name: "session"}, 10, ws, time.Minute, false)
	f := c.Flow
	if f == nil || f.FlowsPerSecond != 100 || f.Completed != 400 || f.Failed != 4 || f.Failures["login: status_401"] != 4 {
		t.Fatalf("flow %+v; want 400 flows in 4 s, 4 failed at login", f)
	}
	if f.Latency.P50 < 19_000 || len(f.Steps) != 2 || f.Steps[1].Name != "me" || f.Steps[1].ThroughputRPS != 200 {
		t.Errorf("latency %v, steps %+v", f.Latency, f.Steps)
	}
}
