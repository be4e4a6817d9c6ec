package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
)

// routeOf is a journaled route whose every success took latencyUs.
func routeOf(t *testing.T, name string, weightShare float64, attempts, successes, latencyUs int64) journal.LoadRoute {
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
	return journal.LoadRoute{Name: name, WeightShare: weightShare, Attempts: attempts, Successes: successes, Errors: errs, LatencyHist: enc}
}

// A mix's cell sums its routes over the counted windows only: shares of
// the attempts, throughput over the windows' length, failed shares, and
// latency from the merged histograms; an uncounted window is left out.
func TestCellRoutesOverCountedWindows(t *testing.T) {
	window := func(flags []journal.Flag, user, list journal.LoadRoute) journal.Window {
		return journal.Window{Flags: flags, Load: &journal.LoadResult{DurationSeconds: 2, LatencyHist: user.LatencyHist,
			Routes: []journal.LoadRoute{user, list}}}
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
	single, _ := newCell("a", CaseInfo{Name: "user"}, 10, []journal.Window{{Load: &journal.LoadResult{DurationSeconds: 1}}}, time.Minute, false)
	if single.Routes != nil {
		t.Errorf("a case of one route has routes %+v", single.Routes)
	}
}
