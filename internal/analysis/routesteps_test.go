package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// mixRoute is a journaled route whose successes spread about p50Us
// (log-normal quantiles, 15 %), with failed more attempts.
func mixRoute(t *testing.T, name string, successes, failed int64, p50Us float64) load.RouteResult {
	t.Helper()
	h := hist.New(time.Minute)
	for i := range successes {
		q := (float64(i) + 0.5) / float64(successes)
		h.RecordMicros(int64(p50Us * math.Exp(0.15*math.Sqrt2*math.Erfinv(2*q-1))))
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]int64{}
	if failed > 0 {
		errs["status_500"] = failed
	}
	return load.RouteResult{Name: name, Attempts: successes + failed, Successes: successes, Errors: errs, LatencyHist: enc}
}

// mixJournal is a closed-loop run of stacks a and b on one mix "shop" of
// list (weight 3) and create (weight 1) over 8 interleaved rounds: b's
// list answers in listShift × a's time, its create in createShift × a's
// and fails createFailed of its 400 creates a window. stall, when above
// 0, makes b's list take stall µs in the even rounds. callRoutes is the
// mix's call_routes.
func mixJournal(t *testing.T, listShift, createShift float64, createFailed int64, stall float64, callRoutes bool) *journal.Results {
	t.Helper()
	pr := plan.Protocol{Concurrency: []int{4}, Cases: []string{"shop"}, Rounds: 8, Layout: plan.LayoutInterleaved, Order: plan.OrderWilliams,
		MinEffect: 0.05, Timeout: time.Second}
	pl := plan.Plan{WorkloadName: "custom", Protocol: pr, Stacks: []plan.Stack{{Name: "a"}, {Name: "b"}}}
	res := &journal.Results{Plan: &journal.Plan{RunID: "t", Plan: pl,
		Cases: []journal.Case{{Name: "shop", CallRoutes: callRoutes}}}}
	for r := 1; r <= 8; r++ {
		wiggle := 1 + 0.01*float64(r%3)
		for _, s := range []string{"a", "b"} {
			list, create, failed := 2000*wiggle, 6000*wiggle, int64(0)
			if s == "b" {
				list, create, failed = list*listShift, create*createShift, createFailed
				if stall > 0 && r%2 == 0 {
					list = stall
				}
			}
			routes := []load.RouteResult{mixRoute(t, "list", 1200, 0, list), mixRoute(t, "create", 400-failed, failed, create)}
			pw := plan.Window{Key: plan.WindowKey(r, s, "shop", 4), Round: r, Stack: s, Case: "shop", Concurrency: 4}
			res.Plan.Plan.Windows = append(res.Plan.Plan.Windows, pw)
			res.Windows = append(res.Windows, journal.Window{Key: pw.Key, Index: len(res.Windows) + 1, Round: r, Stack: s, Case: "shop", Concurrency: 4,
				Final: true, Attempt: 1, Process: journal.ProcessInfo{Seq: r}, Server: journal.Usage{Cores: 1},
				Load: &load.Result{ThroughputRPS: 1600 * wiggle, Successes: 1600 - failed, Attempts: 1600, DurationSeconds: 1,
					TimeoutSeconds: 1, LatencyHist: routes[0].LatencyHist, Routes: routes}})
		}
	}
	return res
}

func analyse(t *testing.T, res *journal.Results) *Result {
	t.Helper()
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 1 {
		t.Fatalf("steps %+v", m.Steps)
	}
	return m
}

// A mix's step shows each route's p50 and p99 with its estimate and
// interval: b's list 30 % faster, its create 40 % slower, each seen on
// its own route while the mix is one case. Without call_routes they are
// shown, not called, and stay outside the family; b's create failures
// show as its error share.
func TestMixStepShowsEachRoute(t *testing.T) {
	m := analyse(t, mixJournal(t, 0.7, 1.4, 8, 0, false))
	s := m.Steps[0]
	if len(s.Routes) != 2 || s.Routes[0].Name != "list" || s.Routes[1].Name != "create" {
		t.Fatalf("routes %+v", s.Routes)
	}
	list, create := s.Routes[0], s.Routes[1]
	if list.Source != RouteSourceClosedLoop || list.Called {
		t.Errorf("list source %q called %v; want closed_loop, not called", list.Source, list.Called)
	}
	for _, c := range []struct {
		name   string
		ch     Change
		lo, hi float64
	}{{"list p50", list.P50, -35, -25}, {"list p99", list.P99, -35, -25}, {"create p50", create.P50, 35, 45}} {
		if c.ch.Call != stats.CallNotCalled || !c.ch.Bounded() || !c.ch.LowerIsBetter {
			t.Errorf("%s: %+v; want shown with an interval, not called", c.name, c.ch)
			continue
		}
		if c.ch.EstimatePct < c.lo || c.ch.EstimatePct > c.hi || *c.ch.CILowPct > c.ch.EstimatePct || *c.ch.CIHighPct < c.ch.EstimatePct {
			t.Errorf("%s: %+.1f %% [%+.1f, %+.1f]; want an estimate within %g … %g %% inside its interval", c.name, c.ch.EstimatePct, *c.ch.CILowPct, *c.ch.CIHighPct, c.lo, c.hi)
		}
	}
	if list.ToP50Micros >= list.FromP50Micros || create.ToP50Micros <= create.FromP50Micros {
		t.Errorf("figures: list %v → %v, create %v → %v µs", list.FromP50Micros, list.ToP50Micros, create.FromP50Micros, create.ToP50Micros)
	}
	// 8 of 400 creates failed, at the 1 s timeout: the error share, and a
	// p99 set by the failures.
	if create.FromErrorRate != 0 || math.Abs(create.ToErrorRate-0.02) > 1e-9 || create.ToP99Micros < 900_000 {
		t.Errorf("create errors %v → %v, p99 to %v µs; want 0 → 2 %% and the timeout in the p99", create.FromErrorRate, create.ToErrorRate, create.ToP99Micros)
	}
	if m.Header.FamilyCalls != 2 || s.Throughput.FamilyCalls != 2 {
		t.Errorf("the family counts %d (throughput's %d); want the step's 2 metrics, the routes outside", m.Header.FamilyCalls, s.Throughput.FamilyCalls)
	}
}

// With call_routes the routes' calls are made in the run's family: b's
// faster list is a gain, its slower create a loss, and the family
// counts them with the step's own.
func TestMixStepCallsRoutesWhenAsked(t *testing.T) {
	m := analyse(t, mixJournal(t, 0.7, 1.4, 0, 0, true))
	s := m.Steps[0]
	list, create := s.Routes[0], s.Routes[1]
	if !list.Called || list.P99.Call != stats.CallGain || list.P50.Call != stats.CallGain {
		t.Errorf("list: p50 %s, p99 %s (%s); want gains", list.P50.Call, list.P99.Call, list.P99.Reason)
	}
	if create.P50.Call != stats.CallLoss {
		t.Errorf("create p50: %s (%s); want a loss", create.P50.Call, create.P50.Reason)
	}
	if m.Header.FamilyCalls != 6 || list.P99.FamilyCalls != 6 {
		t.Errorf("the family counts %d (list p99's %d); want 2 step metrics + 2 routes × 2", m.Header.FamilyCalls, list.P99.FamilyCalls)
	}
}

// A route that stalls in four of eight rounds has a pooled p99 set by the
// stalls: its share of the step shows a rise, not a gain from the six
// good rounds (trap T24, per route).
func TestMixStepRouteStallIsNotAGain(t *testing.T) {
	m := analyse(t, mixJournal(t, 0.9, 1, 0, 80_000, true))
	list := m.Steps[0].Routes[0]
	if list.P99.Call == stats.CallGain || list.P99.EstimatePct < 100 {
		t.Errorf("list p99: %s %+.1f %%; want the stalls' rise, never a gain", list.P99.Call, list.P99.EstimatePct)
	}
}

// A threshold on a mix's route (thresholds cases: {shop/list: {p99:
// 25ms}}) is judged on that route's requests pooled, like a case's: b's
// list, stalling at 80 ms in half its rounds, fails it while the mix's
// other route and a's list pass; a's figure is the list's own (its 2 ms),
// not the mix's.
func TestRouteThresholdOnAStallingRoute(t *testing.T) {
	res := mixJournal(t, 1, 1, 0, 80_000, false)
	res.Plan.Plan.Thresholds = []plan.CaseThresholds{
		{Case: "shop", Route: "list", Thresholds: plan.Thresholds{P99: 25 * time.Millisecond}},
		{Case: "shop", Route: "create", Thresholds: plan.Thresholds{P99: 25 * time.Millisecond}},
	}
	m := analyse(t, res)
	got := map[string]ThresholdCheck{}
	for _, tc := range m.Thresholds {
		got[tc.Stack+" "+tc.Target()] = tc
	}
	if len(m.Thresholds) != 4 {
		t.Fatalf("checks %+v; want a and b on shop/list and shop/create", m.Thresholds)
	}
	if c := got["b shop/list"]; c.Verdict != ThresholdFail || c.Estimate < 79 || c.Basis != BasisPooled || c.Route != "list" {
		t.Errorf("b's stalling list: %s, %.1f ms (%s); want a fail at about 80 ms", c.Verdict, c.Estimate, c.Reason)
	}
	if c := got["a shop/list"]; c.Verdict != ThresholdPass || c.Estimate > 4 {
		t.Errorf("a's list: %s, %.1f ms; want a pass at its own p99, under 4 ms", c.Verdict, c.Estimate)
	}
	for _, k := range []string{"a shop/create", "b shop/create"} {
		if got[k].Verdict != ThresholdPass {
			t.Errorf("%s: %s, %.1f ms (%s); want a pass", k, got[k].Verdict, got[k].Estimate, got[k].Reason)
		}
	}
}
