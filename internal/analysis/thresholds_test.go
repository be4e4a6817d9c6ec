package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// at is a window's distribution: n requests at us microseconds each.
func at(us float64, n int64) *stats.Dist {
	return &stats.Dist{Values: []float64{us}, Counts: []int64{n}}
}

// A cell whose eight counted windows took 4.1 to 5.4 ms for every request,
// one more not counted, and whose error rates are 0 … 0.08 %.
func thresholdCell() Cell {
	c := Cell{Stack: "api", Case: "user", Concurrency: 8}
	for i, us := range []float64{5000, 4100, 5400, 4800, 4600, 5200, 4900, 4400, 90000} {
		c.PerWindow = append(c.PerWindow, WindowFigures{Round: i + 1, Process: i + 1, Counted: i < 8, HasLoad: true,
			ThroughputRPS: 1000 + 10*float64(i), Latency: Latency{P50: us, P99: us}, ErrorRate: float64(i) * 0.0001, limitDist: at(us, 100)})
	}
	return c
}

func judgeOne(c Cell, t plan.Thresholds) []ThresholdCheck {
	return JudgeThresholds([]Cell{c}, nil, []plan.CaseThresholds{{Case: c.Case, Thresholds: t}}, 0)
}

func TestThresholdsJudgedWithAnInterval(t *testing.T) {
	rate := func(f float64) *float64 { return &f }
	ts := JudgeThresholds([]Cell{thresholdCell()}, nil, []plan.CaseThresholds{{Case: "user",
		Thresholds: plan.Thresholds{P99: time.Millisecond, P50: time.Second, ThroughputRPS: 1040, ErrorRate: rate(0.0005)}}}, time.Minute)
	got := map[string]ThresholdCheck{}
	for _, tc := range ts {
		got[tc.Metric] = tc
	}
	// Four checks, one family: each at 1 − 5 % ÷ 4 = 98.75 %. The p99 of
	// all 800 counted requests is the slowest window's 5.4 ms; every
	// resample of the eight processes has it between 4.1 and 5.4 ms:
	// wholly above 1 ms.
	p99 := got["p99"]
	if p99.Verdict != ThresholdFail || p99.Windows != 8 || p99.Values != 8 || p99.Estimate != 5.4 || p99.Basis != BasisPooled ||
		*p99.Low < 4.1 || *p99.High != 5.4 || p99.FamilySize != 4 || p99.Source != ThresholdClosedLoop {
		t.Errorf("p99 ≤ 1 ms: %+v (low %v high %v)", p99, *p99.Low, *p99.High)
	}
	if got["p50"].Verdict != ThresholdPass {
		t.Errorf("p50 ≤ 1 s: %+v", got["p50"])
	}
	// Throughput 1000…1070: the interval 1000 … 1070 straddles 1040.
	if tp := got["throughput"]; tp.Verdict != ThresholdUndecided || tp.AtMost || tp.Basis != BasisMedian || !strings.Contains(tp.Reason, "straddles") {
		t.Errorf("throughput ≥ 1040: %+v", tp)
	}
	// The error rate counts the uncounted window too: nine values, 0 …
	// 0.08 %, an interval across 0.05 %.
	if er := got["error_rate"]; er.Windows != 9 || er.Verdict != ThresholdUndecided || er.Unit != "%" || er.Limit != 0.05 {
		t.Errorf("error_rate ≤ 0.05 %%: %+v", er)
	}
}

func TestThresholdsNeedSixProcesses(t *testing.T) {
	c := thresholdCell()
	c.PerWindow = c.PerWindow[:5]
	ts := judgeOne(c, plan.Thresholds{P99: time.Millisecond})
	if len(ts) != 1 || ts[0].Verdict != ThresholdUndecided || ts[0].Low != nil || !strings.Contains(ts[0].Reason, "6 or more decide") {
		t.Errorf("five windows: %+v", ts)
	}
	c.PerWindow = append(c.PerWindow, WindowFigures{Round: 6, Process: 6, Counted: true, HasLoad: true, limitDist: at(4000, 100)})
	if ts := judgeOne(c, plan.Thresholds{P99: time.Millisecond}); ts[0].Verdict != ThresholdFail {
		t.Errorf("six windows all above: %+v", ts)
	}
	if ts := judgeOne(Cell{Stack: "api", Case: "user"}, plan.Thresholds{P99: time.Millisecond}); ts[0].Verdict != ThresholdInvalid {
		t.Errorf("no window: %+v", ts)
	}
}

// Latency limits are judged on the latency windows' corrected histograms
// where the run has them, and the check says so; one unit per process,
// however many windows it served; and a window's failures count against
// the limit: a closed-loop window left out as invalid for its 3 %
// failures has them at the timeout in its distribution.
func TestThresholdsOnCorrectedLatencyPerProcess(t *testing.T) {
	closed := thresholdCell()
	open := Cell{Stack: "api", Case: "user", Concurrency: 8, Windows: 8}
	for i := range 8 {
		open.PerWindow = append(open.PerWindow, WindowFigures{Round: i + 1, Process: i + 1, Counted: true, HasLoad: true,
			Flags: []journal.Flag{journal.FlagBehind}, limitDist: at(30_000+1000*float64(i), 100)})
	}
	ts := JudgeThresholds([]Cell{closed}, []Cell{open}, []plan.CaseThresholds{{Case: "user", Thresholds: plan.Thresholds{P99: 25 * time.Millisecond}}}, time.Minute)
	if tc := ts[0]; tc.Source != ThresholdOpenLoop || tc.Verdict != ThresholdFail || tc.Values != 8 {
		t.Errorf("p99 ≤ 25 ms with latency windows at 30–37 ms (behind, counted): %+v", tc)
	}

	// One unit per process: two windows of each of six processes.
	pp := Cell{Stack: "api", Case: "user", Concurrency: 8}
	for i := range 12 {
		pp.PerWindow = append(pp.PerWindow, WindowFigures{Round: i/2 + 1, Process: i/2 + 1, Counted: true, HasLoad: true, limitDist: at(2000, 100)})
	}
	if ts := judgeOne(pp, plan.Thresholds{P99: 25 * time.Millisecond}); ts[0].Values != 6 || ts[0].Windows != 12 || ts[0].Verdict != ThresholdPass {
		t.Errorf("six processes of two windows: %+v", ts[0])
	}

	// Failures count against the limit: three of eight windows failed 3 %
	// of their requests (invalid, not counted), their fast successes aside.
	f := Cell{Stack: "api", Case: "user", Concurrency: 8}
	for i := range 8 {
		w := WindowFigures{Round: i + 1, Process: i + 1, Counted: true, HasLoad: true, limitDist: at(2000, 100)}
		if i%3 == 0 {
			w.Counted, w.ErrorRate, w.Flags = false, 0.03, []journal.Flag{journal.FlagInvalid}
			w.limitDist = &stats.Dist{Values: []float64{2000, 60_000_000}, Counts: []int64{97, 3}}
		}
		f.PerWindow = append(f.PerWindow, w)
	}
	ts = judgeOne(f, plan.Thresholds{P99: 25 * time.Millisecond})
	if ts[0].Windows != 8 || ts[0].Verdict == ThresholdPass || ts[0].High == nil || *ts[0].High < 60_000 {
		t.Errorf("three windows with 3 %% failures: %+v; their p99 is the timeout, so the limit cannot pass", ts[0])
	}
}

// Issue 43, item 5: a threshold on a percentile judges all the requests,
// not the median window. A stack that stalls 300 ms at the end of some
// of its 15 latency windows (stallJournal: 30 % of those windows'
// requests held up) has a median window well under 25 ms; its pooled p99
// is the stalls'. With stalls in 5 of 15 windows it fails p99 ≤ 25 ms;
// with 3 of 15 it must not pass. (Judged on the median of the windows'
// own p99s, as before, both passed.)
func TestStallingStackFailsAP99Threshold(t *testing.T) {
	for _, stalled := range []int{5, 3} {
		for seed := range 3 {
			stalls := map[int]bool{}
			for _, i := range rand.New(rand.NewPCG(uint64(seed), 43)).Perm(15)[:stalled] {
				stalls[2+i] = true
			}
			res := stallJournal(t, seed, stalls)
			res.Plan.Plan.Thresholds = []plan.CaseThresholds{plan.CaseThresholds{Case: "x", Thresholds: plan.Thresholds{P99: 25 * time.Millisecond}}}
			m, err := FromResults(res, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b, a *ThresholdCheck
			for i := range m.Thresholds {
				switch m.Thresholds[i].Stack {
				case "b":
					b = &m.Thresholds[i]
				case "a":
					a = &m.Thresholds[i]
				}
			}
			if a == nil || b == nil {
				t.Fatalf("thresholds %+v; want one for a and one for b", m.Thresholds)
			}
			if a.Verdict != ThresholdPass || a.Source != ThresholdOpenLoop {
				t.Errorf("a never stalls: %+v", *a)
			}
			switch {
			case stalled == 5 && b.Verdict != ThresholdFail:
				t.Errorf("stalls in %d of 15 windows (rounds %v): %s, %s; want fail", stalled, stalls, b.Verdict, b.Reason)
			case b.Verdict == ThresholdPass:
				t.Errorf("stalls in %d of 15 windows (rounds %v): pass; a stalling stack must not pass", stalled, stalls)
			}
			if b.Estimate < 100 {
				t.Errorf("b's pooled p99 %g ms; want the stalls in it", b.Estimate)
			}
		}
	}
}
