package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// frozenJournal is an adaptive run of stacks a → b on four cases at c=1,
// 10 rounds to start, up to 24: the family has 8 calls, so its looks are
// after rounds 10, 20 and 24. Case x: b is 2 % above a with little noise
// and two small reversals, so at the first look its interval lies within
// ±5 % and excludes 0 (p = 10/1024), but the family does not select it:
// same, and the run measures it no more. Cases y, z and w: no direction
// over rounds 1–10 (undecided, measured on), +30 % in each of rounds
// 11–20, so at the second look they are selected — which, judged again
// from x's same ten pairs, would select x too.
func frozenJournal(t *testing.T) *journal.Results {
	t.Helper()
	cases := []string{"x", "y", "z", "w"}
	pr := plan.Protocol{Concurrency: []int{1}, Cases: cases, Rounds: 10, MaxRounds: 24, Adaptive: true,
		Layout: plan.LayoutInterleaved, Order: plan.OrderWilliams, MinEffect: 0.05, Timeout: time.Minute}
	pl := plan.Plan{WorkloadName: "custom", Protocol: pr, Stacks: []plan.Stack{{Name: "a"}, {Name: "b"}}}
	res := &journal.Results{Plan: &journal.Plan{RunID: "t", Plan: pl}}
	seq := 0
	add := func(round int, stack, cas string, rps float64) plan.Window {
		seq++
		pw := plan.Window{Key: plan.WindowKey(round, stack, cas, 1), Round: round, Stack: stack, Case: cas, Concurrency: 1}
		res.Windows = append(res.Windows, journal.Window{Key: pw.Key, Index: seq, Round: round, Stack: stack, Case: cas, Concurrency: 1,
			Final: true, Attempt: 1, Process: journal.ProcessInfo{Seq: seq}, Server: journal.Usage{Cores: 1},
			Load: &load.Result{ThroughputRPS: rps, Successes: int64(rps), Attempts: int64(rps), DurationSeconds: 1}})
		return pw
	}
	for r := 1; r <= 20; r++ {
		var extra []plan.Window
		for _, cas := range cases {
			if cas == "x" && r > 10 {
				continue
			}
			ratio := 1.02 + 0.001*float64(r)
			switch {
			case cas == "x" && r <= 2:
				ratio = 1 - 0.0005*float64(r) // the two smallest, reversed
			case cas != "x" && r <= 10:
				ratio = 1.15
				if r%2 == 0 {
					ratio = 1 / 1.15
				}
			case cas != "x":
				ratio = 1.3 + 0.01*float64(r)
			}
			wa, wb := add(r, "a", cas, 1000), add(r, "b", cas, 1000*ratio)
			if r <= 10 {
				res.Plan.Plan.Windows = append(res.Plan.Plan.Windows, wa, wb)
			} else {
				extra = append(extra, wa, wb)
			}
		}
		if r > 10 {
			res.Rounds = append(res.Rounds, journal.Round{Round: r, Windows: extra, Undecided: []string{"a → b y c=1", "a → b z c=1", "a → b w c=1"}})
		}
	}
	res.Rounds = append(res.Rounds, journal.Round{Round: 20, Stop: "every step is decided"})
	return res
}

// Issue 31, item 5: a step stopped at a look keeps its call there; a
// later look, with no new window of it, cannot make it a gain because
// other steps raised the count the family selected.
func TestStoppedStepKeepsItsCall(t *testing.T) {
	res := frozenJournal(t)
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ri := m.Header.Rounds; ri == nil || len(ri.Looks) != 3 || ri.Looks[0] != 10 || ri.Looks[1] != 20 || m.Header.FamilyCalls != 8 {
		t.Fatalf("rounds %+v, family %d; want looks 10, 20, 24 over 8 calls", m.Header.Rounds, m.Header.FamilyCalls)
	}
	calls := map[string]stats.Call{}
	for _, s := range m.Steps {
		calls[s.Case] = s.Throughput.Call
	}
	for _, cas := range []string{"y", "z", "w"} {
		if calls[cas] != stats.CallGain {
			t.Errorf("case %s: %s, want the gain its 20 pairs show", cas, calls[cas])
		}
	}
	x := m.Steps[0]
	if x.Throughput.Call != stats.CallSame || x.PerCPU.Call != stats.CallSame {
		t.Errorf("case x: throughput %s (%s), per CPU-second %s; want same, as called at the look where it stopped",
			x.Throughput.Call, x.Throughput.Reason, x.PerCPU.Call)
	}
	// The first look's own call, from rounds 1–10 alone, is the same one.
	first, _ := FromResults(withoutRoundsAfter(res, 10), Options{})
	if c := first.Steps[0].Throughput.Call; c != x.Throughput.Call {
		t.Errorf("at the first look x was %s, at the last %s; a stopped step's call must not change", c, x.Throughput.Call)
	}
}

// withoutRoundsAfter is the journal as it stood after round last.
func withoutRoundsAfter(res *journal.Results, last int) *journal.Results {
	out := *res
	out.Windows, out.Latency, out.Rounds = nil, nil, nil
	for _, w := range res.Windows {
		if w.Round <= last {
			out.Windows = append(out.Windows, w)
		}
	}
	for _, w := range res.Latency {
		if w.Round <= last {
			out.Latency = append(out.Latency, w)
		}
	}
	return &out
}

// frozenLatencyJournal is an adaptive run of a → b on cases y and x with
// latency windows at 500 req/s from round 1: ten calls (five a step), so
// the looks are after rounds 11, 22 and 24. Case x is clear at the first
// look on every metric (b 30 % faster, its latency 30 % lower, its CPU
// per request lower) and is measured no more; case y has no direction
// over rounds 1–11 and a clear one in rounds 12–22.
func frozenLatencyJournal(t *testing.T) *journal.Results {
	t.Helper()
	cases := []string{"y", "x"}
	pr := plan.Protocol{Concurrency: []int{1}, Cases: cases, Rounds: 11, MaxRounds: 24, Adaptive: true,
		Layout: plan.LayoutInterleaved, Order: plan.OrderWilliams, MinEffect: 0.05, Timeout: time.Minute, Latency: &plan.LatencyRate{RPS: 500}}
	pl := plan.Plan{WorkloadName: "custom", Protocol: pr, Stacks: []plan.Stack{{Name: "a"}, {Name: "b"}}}
	res := &journal.Results{Plan: &journal.Plan{RunID: "t", Plan: pl}}
	seq := 0
	window := func(key string, round int, stack, cas string, rps, us, cores float64) journal.Window {
		seq++
		h := hist.New(time.Minute)
		for i := range 100 {
			h.RecordMicros(int64(us * math.Exp(0.1*math.Sqrt2*math.Erfinv(2*(float64(i)+0.5)/100-1))))
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return journal.Window{Key: key, Index: seq, Round: round, Stack: stack, Case: cas, Concurrency: 1, Final: true, Attempt: 1,
			Process: journal.ProcessInfo{Seq: seq}, Server: journal.Usage{Cores: cores},
			Load: &load.Result{SchemaVersion: 3, ThroughputRPS: rps, Successes: int64(rps), Attempts: int64(rps), DurationSeconds: 1, LatencyHist: enc,
				LatencyMicros: load.Latency{P50: h.PercentileMicros(50), P99: h.PercentileMicros(99)}}}
	}
	for r := 1; r <= 22; r++ {
		var extra []plan.Window
		for _, cas := range cases {
			if cas == "x" && r > 11 {
				continue
			}
			ratio := 1.3 + 0.002*float64(r%5)
			if cas == "y" && r <= 11 {
				ratio = 1.15
				if r%2 == 0 {
					ratio = 1 / 1.15
				}
			}
			for _, s := range []string{"a", "b"} {
				f := 1.0
				if s == "b" {
					f = ratio
				}
				pw := plan.Window{Key: plan.WindowKey(r, s, cas, 1), Round: r, Stack: s, Case: cas, Concurrency: 1}
				res.Windows = append(res.Windows, window(pw.Key, r, s, cas, 1000*f, 1000, 1))
				lw := window(plan.LatencyKey(pw), r, s, cas, 500, 1000/f, 0.25/f)
				lw.Load.Rate = 500
				res.Latency = append(res.Latency, lw)
				if r <= 11 {
					res.Plan.Plan.Windows = append(res.Plan.Plan.Windows, pw)
				} else {
					extra = append(extra, pw)
				}
			}
		}
		if r > 11 {
			res.Rounds = append(res.Rounds, journal.Round{Round: r, Windows: extra, Undecided: []string{"a → b y c=1"}})
		}
	}
	res.Rounds = append(res.Rounds, journal.Round{Round: 22, Stop: "every step is decided"})
	return res
}

// A stopped step keeps every one of its calls, latency and fixed-rate
// cost included, each at its own place in the family: the second step's
// frozen p50 must not land on the first step's cost.
func TestStoppedStepKeepsItsLatencyCalls(t *testing.T) {
	res := frozenLatencyJournal(t)
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ri := m.Header.Rounds; ri == nil || len(ri.Looks) < 2 || ri.Looks[0] != 11 || ri.Looks[1] != 22 {
		t.Fatalf("looks %+v; want after rounds 11 and 22", m.Header.Rounds)
	}
	first, err := FromResults(withoutRoundsAfter(res, 11), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, x11 := m.Steps[1], first.Steps[1]
	if x.Case != "x" || x.P50 == nil || x.Cost == nil {
		t.Fatalf("step 1: %+v", x)
	}
	for _, c := range []struct {
		name     string
		now, was *Change
	}{{"p50", x.P50, x11.P50}, {"p99", x.P99, x11.P99}, {"cost", x.Cost, x11.Cost}} {
		if c.now.Call != c.was.Call || c.now.EstimatePct != c.was.EstimatePct || c.now.Confidence != c.was.Confidence {
			t.Errorf("x %s: %s %+.1f %% at %.4g, was %s %+.1f %% at %.4g at the look where it stopped",
				c.name, c.now.Call, c.now.EstimatePct, c.now.Confidence, c.was.Call, c.was.EstimatePct, c.was.Confidence)
		}
	}
	if y := m.Steps[0]; y.Cost == nil || y.Cost.EstimatePct == x.P50.EstimatePct || y.Cost.Call != stats.CallGain {
		t.Errorf("y's cost %+v; want its own call (a gain), not x's frozen p50", y.Cost)
	}
}

// Issue 43, item 4: under closed_loop: first the closed-loop cells hold
// round 1 only, so a step measured on at fixed rate after a look must not
// be taken for one the run measured no more. Case y is undecided at the
// first look (after round 11) and measured through round 22, where its
// fixed-rate cost is a clear gain; frozen at the first look, it would stay
// undecided with "measured this step no more".
func TestClosedLoopFirstDoesNotFreezeOpenSteps(t *testing.T) {
	res := frozenLatencyJournal(t)
	res.Plan.Plan.Protocol.ClosedLoop = plan.ClosedLoopFirst
	res.Plan.Plan.Protocol.Calls = []string{plan.MetricCost}
	var closed []journal.Window
	for _, w := range res.Windows {
		if w.Round == 1 {
			closed = append(closed, w)
		}
	}
	res.Windows = closed
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ri := m.Header.Rounds; ri == nil || len(ri.Looks) < 2 {
		t.Fatalf("looks %+v; want two or more", m.Header.Rounds)
	}
	y := m.Steps[0]
	if y.Case != "y" || y.Cost == nil {
		t.Fatalf("step 0: %+v", y)
	}
	if y.Cost.Call != stats.CallGain || strings.Contains(y.Cost.Reason, "frozen") {
		t.Errorf("y's cost: %s (%s); want the gain rounds 12–22 show, not a call frozen at the first look", y.Cost.Call, y.Cost.Reason)
	}
}

// Issue 47: a mix step stopped at a look keeps its routes' calls from
// there too. Case x of frozenJournal as a mix of list and create with
// call_routes: x is measured no more after round 10, so its route calls
// at the last look are the first look's, and say where they were frozen.
func TestStoppedMixStepKeepsItsRouteCalls(t *testing.T) {
	res := frozenJournal(t)
	res.Plan.Cases = []journal.Case{{Name: "x", CallRoutes: true}, {Name: "y"}, {Name: "z"}, {Name: "w"}}
	for i := range res.Windows {
		w := &res.Windows[i]
		if w.Case != "x" {
			continue
		}
		shift := 1.0
		if w.Stack == "b" {
			shift = 1.03 + 0.002*float64(w.Round%4)
		}
		w.Load.Routes = []load.RouteResult{mixRoute(t, "list", 300, 0, 2000*shift), mixRoute(t, "create", 100, 0, 6000)}
		w.Load.TimeoutSeconds = 1
	}
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := FromResults(withoutRoundsAfter(res, 10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, x10 := m.Steps[0], first.Steps[0]
	if x.Case != "x" || len(x.Routes) != 2 || len(x10.Routes) != 2 {
		t.Fatalf("step %s routes %+v (at the first look %+v); want x's list and create", x.Case, x.Routes, x10.Routes)
	}
	for j, r := range x.Routes {
		for _, c := range []struct {
			name       string
			last, look Change
		}{{r.Name + " p50", r.P50, x10.Routes[j].P50}, {r.Name + " p99", r.P99, x10.Routes[j].P99}} {
			if c.last.Call != c.look.Call || c.last.EstimatePct != c.look.EstimatePct {
				t.Errorf("%s: %s %+.2f %% at the last look, %s %+.2f %% at the look where x stopped; a stopped step's route call must not change",
					c.name, c.last.Call, c.last.EstimatePct, c.look.Call, c.look.EstimatePct)
			}
			if !strings.Contains(c.last.Reason, "frozen at the look after round 10") {
				t.Errorf("%s: reason %q does not say it was frozen at round 10", c.name, c.last.Reason)
			}
		}
	}
}
