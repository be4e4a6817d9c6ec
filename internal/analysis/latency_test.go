package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// latencyJournal is a run of two stacks a and b on one case at c=4 over
// rounds 1 … rounds, interleaved, with latency windows at 50 % from round
// 2: both serve about 1000 req/s closed-loop; in the latency windows b's
// p50 is p50Shift times a's and the p99s are alike. behind flags b's
// latency window of round 3 behind.
func latencyJournal(t *testing.T, rounds int, p50Shift float64, behind bool) *journal.Results {
	t.Helper()
	pr := plan.Protocol{Concurrency: []int{4}, Cases: []string{"x"}, Rounds: rounds, Layout: plan.LayoutInterleaved, Order: plan.OrderWilliams,
		MinEffect: 0.05, Timeout: time.Minute, Latency: &plan.LatencyRate{Share: 0.5}}
	pl := plan.Plan{WorkloadName: "custom", Protocol: pr, Stacks: []plan.Stack{{Name: "a"}, {Name: "b"}}}
	res := &journal.Results{Plan: &journal.Plan{RunID: "t", Plan: pl}}
	idx := 0
	window := func(key string, round int, stack string, rps, p50, p99 float64) journal.Window {
		h := hist.New(time.Minute)
		for i := range 100 {
			// a spread about p50 (log-normal quantiles, 15 %), two at p99
			us := p50 * math.Exp(0.15*math.Sqrt2*math.Erfinv(2*(float64(i)+0.5)/98-1))
			if i >= 98 {
				us = p99
			}
			h.RecordMicros(int64(us))
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		idx++
		return journal.Window{Key: key, Index: idx, Round: round, Stack: stack, Case: "x", Concurrency: 4, Final: true, Attempt: 1,
			Process: journal.ProcessInfo{Seq: round},
			Server:  journal.Usage{Cores: 1},
			Load: &load.Result{ThroughputRPS: rps, Successes: int64(rps), Attempts: int64(rps), DurationSeconds: 1, LatencyHist: enc,
				LatencyMicros: load.Latency{P50: h.PercentileMicros(50), P99: h.PercentileMicros(99)}}}
	}
	for r := 1; r <= rounds; r++ {
		wiggle := 1 + 0.002*float64(r%3) // the host's drift, shared by the round
		for _, s := range []string{"a", "b"} {
			noise := 1.0 // b's own noise, within ±0.2 %
			if s == "b" {
				noise += 0.001 * float64((r*7)%5-2)
			}
			pw := plan.Window{Key: plan.WindowKey(r, s, "x", 4), Round: r, Stack: s, Case: "x", Concurrency: 4}
			res.Plan.Plan.Windows = append(res.Plan.Plan.Windows, pw)
			res.Windows = append(res.Windows, window(pw.Key, r, s, 1000*wiggle*noise, 3000, 9000))
			if !pr.LatencyAfter(pw) {
				continue
			}
			p50 := 1000 * wiggle
			if s == "b" {
				p50 *= p50Shift
			}
			lw := window(plan.LatencyKey(pw), r, s, 500, p50, 4000*wiggle*noise)
			lw.Load.Rate = 500
			if behind && s == "b" && r == 3 {
				lw.Flags = []journal.Flag{journal.FlagBehind}
			}
			res.Latency = append(res.Latency, lw)
		}
	}
	res.LatencyRates = []journal.LatencyRate{LatencyRate(0.5, 1, "x", 4, []string{"a", "b"}, res.FinalWindows())}
	return res
}

// A step's p50 and p99 are called from the latency windows like
// throughput, paired by round, with the direction reversed: b's p50 30 %
// above a's is a loss, alike p99s are the same; the four calls of the
// step share the run's family.
func TestLatencyStepsAreCalledLowerIsBetter(t *testing.T) {
	res := latencyJournal(t, 9, 1.3, false)
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.LatencyCells) != 2 || m.LatencyCells[0].Counted != 8 || m.LatencyCells[0].Latency.P50 < 990 || m.LatencyCells[0].Latency.P50 > 1010 {
		t.Fatalf("latency cells %+v; want a and b with 8 counted windows (rounds 2–9), a's p50 about 1 ms", m.LatencyCells)
	}
	if c, _ := m.Cell("a", "x", 4); c.Counted != 9 || c.Latency.P50 < 2990 {
		t.Errorf("closed-loop cell a: %d counted, p50 %g; the latency windows must not enter it", c.Counted, c.Latency.P50)
	}
	s := m.Steps[0]
	if s.P50 == nil || s.P99 == nil {
		t.Fatalf("step without latency calls: %+v", s)
	}
	if s.P50.Call != stats.CallLoss || s.P50.EstimatePct < 29 || s.P50.EstimatePct > 31 || !s.P50.LowerIsBetter || s.P50.Pairs != 8 {
		t.Errorf("p50 +30 %%: %+v; want a loss of +30 %% over 8 pairs", *s.P50)
	}
	if s.P99.Call != stats.CallSame {
		t.Errorf("p99 alike: %s (%s), want same", s.P99.Call, s.P99.Reason)
	}
	if s.Throughput.Call != stats.CallSame {
		t.Errorf("throughput alike: %s (%s), want same", s.Throughput.Call, s.Throughput.Reason)
	}
	pl := res.RunPlan()
	if m.Header.FamilyCalls != 5 || FamilyCalls(&pl) != 5 || s.P50.FamilyCalls != 5 {
		t.Errorf("family of %d calls (plan %d, p50's %d); want 5: throughput, per CPU-second, p50, p99 and cost", m.Header.FamilyCalls, FamilyCalls(&pl), s.P50.FamilyCalls)
	}
	if l := m.Header.Latency; l == nil || l.Windows != 16 || l.FirstRound != 2 || len(l.Rates) != 1 || l.Rates[0].RateRPS <= 499 || l.Rates[0].RateRPS >= 502 {
		t.Errorf("header latency %+v; want 16 windows from round 2 at half of ~1000 req/s", l)
	}

	// A p50 that falls is a gain.
	m, _ = FromResults(latencyJournal(t, 9, 0.7, false), Options{})
	if c := m.Steps[0].P50.Call; c != stats.CallGain {
		t.Errorf("p50 −30 %%: %s, want gain", c)
	}
}

// A latency window flagged behind is shown and counted: its server did
// not keep up with the offered rate, and that is its latency (trap T24);
// it does not weigh against its cell's majority either.
func TestBehindLatencyWindowCounts(t *testing.T) {
	m, err := FromResults(latencyJournal(t, 9, 1.3, true), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.LatencyCell("b", "x", 4)
	if c.Windows != 8 || c.Counted != 8 || c.State != CellValid || len(c.Flags) != 1 || c.Flags[0].Name != journal.FlagBehind {
		t.Errorf("b's latency cell: %d windows, %d counted, %s, flags %+v; want 8, 8, valid, behind ×1", c.Windows, c.Counted, c.State, c.Flags)
	}
	if m.Header.Latency.Behind != 1 || m.Steps[0].P50.Pairs != 8 {
		t.Errorf("behind %d, pairs %d; want 1 and 8", m.Header.Latency.Behind, m.Steps[0].P50.Pairs)
	}
}

// The rate is the share of the slowest stack's median over the rate rounds, over its
// counted windows; a stack with none counts by what it served, and with no
// stack to go by there is no rate, and the reason says so.
func TestLatencyRate(t *testing.T) {
	w := func(stack string, round int, rps float64, flags ...journal.Flag) journal.Window {
		return journal.Window{Stack: stack, Case: "x", Concurrency: 4, Round: round, Flags: flags,
			Load: &load.Result{ThroughputRPS: rps, Successes: int64(rps)}}
	}
	finals := []journal.Window{
		w("a", 1, 1000), w("a", 1, 1200), w("a", 1, 1100), // median 1100
		w("b", 1, 800), w("b", 1, 100, journal.FlagContended), // 800: the contended one is not counted
		w("b", 3, 10),                          // round 3 is past the rate rounds
		w("c", 1, 2000, journal.FlagContended), // only a contended window: its figure stands
	}
	lr := LatencyRate(0.5, 2, "x", 4, []string{"a", "b", "c"}, finals)
	if lr.RateRPS != 400 || lr.Slowest != "b" || lr.MedianRPS["a"] != 1100 || lr.MedianRPS["c"] != 2000 {
		t.Errorf("rate %+v; want 400 req/s, half of b's 800", lr)
	}
	// Two rate rounds: each stack's median is over both rounds' counted
	// windows, so a window of round 2 moves it; with one, it does not.
	two := append(finals[:len(finals):len(finals)], w("b", 2, 600))
	if lr := LatencyRate(0.5, 2, "x", 4, []string{"a", "b"}, two); lr.RateRPS != 350 || lr.MedianRPS["b"] != 700 {
		t.Errorf("rate over rounds 1-2 %+v; want 350 req/s, half of b's median of 800 and 600", lr)
	}
	if lr := LatencyRate(0.5, 1, "x", 4, []string{"a", "b"}, two); lr.RateRPS != 400 {
		t.Errorf("rate over round 1 %+v; want 400 req/s, round 2 left out", lr)
	}
	none := LatencyRate(0.5, 1, "x", 4, []string{"a"}, []journal.Window{{Stack: "a", Case: "x", Concurrency: 4, Round: 1}})
	if none.RateRPS != 0 || !strings.Contains(none.Reason, "no stack served x at c=4 in round 1") {
		t.Errorf("no rate: %+v", none)
	}
}

// Adaptive rounds treat an undecided latency call like an undecided
// throughput call: 3 pairs cannot decide p50 (the step stays open), 8 can.
func TestLatencyOpen(t *testing.T) {
	m, err := FromResults(latencyJournal(t, 4, 1.3, false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Steps[0]; s.P50.Call != stats.CallUndecided || !m.LatencyOpen(s) {
		t.Errorf("3 pairs: p50 %s, open %v; want undecided and open", s.P50.Call, m.LatencyOpen(s))
	}
	m, _ = FromResults(latencyJournal(t, 9, 1.3, false), Options{})
	if m.LatencyOpen(m.Steps[0]) {
		t.Errorf("8 pairs: p50 %s, p99 %s; want decided, not open", m.Steps[0].P50.Call, m.Steps[0].P99.Call)
	}
	// Cost made invalid by windows short of their rate, 3 of b's 8: the
	// latency cells are valid, the cost view of b's
	// insufficient (more than a quarter do not count), and more windows
	// mend that, so the step stays open (the demo of 2026-12-06 left such
	// a step invalid at round 4 and never measured its cells again).
	res := latencyJournal(t, 9, 1.3, false)
	for i := range res.Latency {
		w := &res.Latency[i]
		w.Server.Cores, w.Database.Cores = 0.25, 0.1
		if w.Stack == "b" && w.Round%3 == 0 {
			w.Load.Unsent = 40
		}
	}
	m, _ = FromResults(res, Options{})
	s := m.Steps[0]
	s.P50, s.P99 = nil, nil // the cost call alone
	if s.Cost == nil || s.Cost.Call != stats.CallInvalid || !m.LatencyOpen(s) {
		t.Errorf("cost short in 3 of 8 windows: cost %+v, open %v; want cost invalid and open", s.Cost, m.LatencyOpen(s))
	}
}

// stallJournal is a run of two stacks over 16 rounds with latency windows
// from round 2 (15 of them): a steady, b 20 % faster, except that b's
// windows in stallRounds stall for 300 ms at their end, so that 30 % of
// their requests are unsent or unfinished at the window's close (in the
// corrected histogram at the time they had waited, load schema 3) and the
// window is flagged behind and invalid, as the run flags it.
func stallJournal(t *testing.T, seed int, stallRounds map[int]bool) *journal.Results {
	t.Helper()
	res := latencyJournal(t, 16, 1, false)
	for i := range res.Latency {
		w := &res.Latency[i]
		h := hist.New(time.Minute)
		base := 1000.0 * (1 + 0.03*math.Sin(float64(seed*31+w.Round*7)))
		if w.Stack == "b" {
			base *= 0.8
		}
		const n = 400
		stall := w.Stack == "b" && stallRounds[w.Round]
		for k := range n {
			us := base * math.Exp(0.2*math.Sqrt2*math.Erfinv(2*(float64(k)+0.5)/n-1))
			if stall && k >= n*7/10 {
				us = 300_000 * float64(n-k) / (n * 3 / 10) // waited since its due time
			}
			h.RecordMicros(int64(us))
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		w.Load.SchemaVersion = 3
		w.Load.LatencyHist = enc
		w.Load.LatencyMicros = load.Latency{P50: h.PercentileMicros(50), P99: h.PercentileMicros(99)}
		w.Load.Attempts, w.Load.Successes = n, n
		if stall {
			w.Load.Unsent, w.Load.Errors = n*3/10-4, map[string]int64{"unfinished": 4}
			w.Load.Attempts, w.Load.Successes = n-w.Load.Unsent, n*7/10
			w.Flags = []journal.Flag{journal.FlagBehind, journal.FlagInvalid}
		}
	}
	return res
}

// Issue 31, item 1: a server that stalls 300 ms late in a fifth of its
// latency windows (3 of 15) is never called a p99 gain against one that
// never stalls, wherever the stalls fall; the p99 call and the table read
// the same merged histograms.
func TestStallingServerIsNeverCalledAP99Gain(t *testing.T) {
	for seed := range 6 {
		stalls := map[int]bool{}
		for _, i := range rand.New(rand.NewPCG(uint64(seed), 31)).Perm(15)[:3] {
			stalls[2+i] = true // latency rounds are 2 … 16
		}
		m, err := FromResults(stallJournal(t, seed, stalls), Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := m.Steps[0]
		if s.P99 == nil || s.P99.Call == stats.CallGain {
			t.Errorf("stalls in rounds %v: p99 %+v; a stalling server must not be a p99 gain", stalls, s.P99)
			continue
		}
		a, _ := m.LatencyCell("a", "x", 4)
		b, _ := m.LatencyCell("b", "x", 4)
		if b.Latency.P99 < 100_000 || b.Counted != 15 {
			t.Errorf("b's table p99 %g µs over %d counted windows; want the stalls in it (≥ 100 ms) over all 15", b.Latency.P99, b.Counted)
		}
		if got, want := s.P99.EstimatePct, 100*(b.Latency.P99/a.Latency.P99-1); math.Abs(got-want) > 0.01*math.Abs(want) {
			t.Errorf("the p99 call's estimate %+.1f %% is not the table's %+.1f %%", got, want)
		}
	}
}

// The fixed-rate cost is the server's and the database's CPU per request
// in the latency windows, called lower-is-better like latency: b's server
// spending 20 % more CPU at the same offered rate is a loss, whatever the
// closed-loop throughput says (alike here); the same CPU is the same.
func TestFixedRateCostIsCalledLowerIsBetter(t *testing.T) {
	for _, c := range []struct {
		bCores float64
		want   stats.Call
	}{{1.2, stats.CallLoss}, {0.8, stats.CallGain}, {1.0, stats.CallSame}} {
		res := latencyJournal(t, 9, 1, false)
		for i := range res.Latency {
			w := &res.Latency[i]
			w.Server.Cores, w.Database.Cores = 0.25, 0.1
			if w.Stack == "b" {
				w.Server.Cores *= c.bCores * (1 + 0.001*float64(w.Round%3))
			}
		}
		m, err := FromResults(res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		lc, _ := m.LatencyCell("a", "x", 4)
		if got := lc.PerWindow[0].CostMicros; got < 690 || got > 710 {
			t.Errorf("a's cost %.1f µs per request, want (0.25 + 0.1) cores × 10⁶ ÷ 500 req/s = 700", got)
		}
		s := m.Steps[0]
		if s.Cost == nil || s.Cost.Call != c.want || !s.Cost.LowerIsBetter || s.Cost.Pairs != 8 {
			t.Errorf("b's server at %.1f× a's CPU: cost %+v, want %s over 8 pairs", c.bCores, s.Cost, c.want)
		}
		if s.Throughput.Call != stats.CallSame {
			t.Errorf("throughput alike: %s", s.Throughput.Call)
		}
	}
}

// A counted latency window whose histogram holds nothing (no request
// answered or failed in it) has no distribution: the pooled calls leave it
// out, and the fixed-rate cost, compared per process, does not need one.
func TestEmptyLatencyWindowHasNoDistribution(t *testing.T) {
	res := latencyJournal(t, 9, 1, false)
	w := &res.Latency[3]
	w.Load.LatencyHist, w.Load.Successes, w.Load.Attempts = "", 0, 0
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Steps[0]; s.P99 == nil || s.Cost == nil {
		t.Fatalf("step without latency calls: %+v", s)
	}
}

// protocol calls: [p50] calls p50 alone: the family is one call a step,
// the verdict's headline is p50, and every other metric is shown with its
// estimate and interval as not called, never a gain, a loss or same.
func TestCallsChooseTheFamily(t *testing.T) {
	res := latencyJournal(t, 9, 1.3, false)
	res.Plan.Plan.Protocol.Calls = []string{plan.MetricP50}
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pl := res.RunPlan()
	s := m.Steps[0]
	if m.Header.FamilyCalls != 1 || FamilyCalls(&pl) != 1 || m.Header.Headline() != plan.MetricP50 {
		t.Errorf("family of %d calls (plan %d), headline %s; want 1 and p50", m.Header.FamilyCalls, FamilyCalls(&pl), m.Header.Headline())
	}
	if s.P50.Call != stats.CallLoss || s.P50.FamilyCalls != 1 {
		t.Errorf("p50 +30 %%: %s in a family of %d; want a loss in a family of 1", s.P50.Call, s.P50.FamilyCalls)
	}
	for name, c := range map[string]*Change{"throughput": &s.Throughput, "per_cpu": &s.PerCPU, "p99": s.P99, "cost": s.Cost} {
		if c.Call != stats.CallNotCalled || c.FamilyCalls != 0 {
			t.Errorf("%s: %s in a family of %d; want not called, outside the family", name, c.Call, c.FamilyCalls)
		}
	}
	if s.Throughput.CILowPct == nil || s.Throughput.CIHighPct == nil {
		t.Error("throughput, not called, lost its interval")
	}
	// An adaptive run does not keep measuring for a metric it does not call.
	if m.ThroughputOpen(s) {
		t.Error("throughput is not called, yet it keeps the step open")
	}
	if CallsLag(pl.Protocol) != 1 {
		t.Errorf("calls lag %d; want 1 (p50 alone, its windows from round 2)", CallsLag(pl.Protocol))
	}
}
