package report

import (
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// A cell whose eight windows' p99 lie from 4.1 to 5.4 ms, one of them not
// counted, and whose error rates are 0.
func thresholdCell() analysis.Cell {
	c := analysis.Cell{Stack: "api", Case: "user", Concurrency: 8}
	for i, p99 := range []float64{5000, 4100, 5400, 4800, 4600, 5200, 4900, 4400, 90000} {
		c.PerWindow = append(c.PerWindow, analysis.WindowFigures{Round: i + 1, Counted: i < 8, HasLoad: true,
			ThroughputRPS: 1000 + 10*float64(i), Latency: analysis.Latency{P99: p99}, ErrorRate: float64(i) * 0.0001})
	}
	return c
}

func TestThresholdsJudgedWithAnInterval(t *testing.T) {
	rate := func(f float64) *float64 { return &f }
	m := &Model{Cells: []analysis.Cell{thresholdCell()}}
	addThresholds(m, []plan.CaseThresholds{{Case: "user", Thresholds: plan.Thresholds{P99: time.Millisecond, P50: time.Second, ThroughputRPS: 1040, ErrorRate: rate(0.0005)}}}, time.Minute)
	got := map[string]ThresholdCheck{}
	for _, tc := range m.Thresholds {
		got[tc.Metric] = tc
	}
	// Four checks, one family: each at 1 − 5 % ÷ 4 = 98.75 %. Eight
	// processes: the narrowest order-statistic interval for the median
	// with that coverage runs from the smallest to the largest value
	// (1 − 2/256 = 99.2 %), 4.1 … 5.4 ms: wholly above 1 ms.
	p99 := got["p99"]
	if p99.Verdict != ThresholdFail || p99.Windows != 8 || p99.Values != 8 || *p99.Low != 4.1 || *p99.High != 5.4 || p99.Median != 4.85 ||
		p99.Confidence != 1-2.0/256 || p99.FamilySize != 4 || p99.Source != ThresholdClosedLoop {
		t.Errorf("p99 ≤ 1 ms: %+v (low %v high %v)", p99, *p99.Low, *p99.High)
	}
	if want := "api user c=8 p99 ≤ 1.00 ms: fail, median 4.85 ms (4.10 … 5.40 ms, 8 processes)"; ThresholdText(p99) != want {
		t.Errorf("text %q, want %q", ThresholdText(p99), want)
	}
	if got["p50"].Verdict != ThresholdPass {
		t.Errorf("p50 ≤ 1 s: %+v", got["p50"])
	}
	// Throughput 1000…1070: the interval 1000 … 1070 straddles 1040.
	if tp := got["throughput"]; tp.Verdict != ThresholdUndecided || tp.AtMost || !strings.Contains(tp.Reason, "straddles") {
		t.Errorf("throughput ≥ 1040: %+v", tp)
	}
	// The error rate counts the uncounted window too: nine values, 0 …
	// 0.08 %, an interval across 0.05 %.
	if er := got["error_rate"]; er.Windows != 9 || er.Verdict != ThresholdUndecided || er.Unit != "%" || er.Limit != 0.05 {
		t.Errorf("error_rate ≤ 0.05 %%: %+v", er)
	}
}

func TestThresholdsNeedSixWindows(t *testing.T) {
	c := thresholdCell()
	c.PerWindow = c.PerWindow[:5]
	ts := judgeCell(c, plan.Thresholds{P99: time.Millisecond})
	if len(ts) != 1 || ts[0].Verdict != ThresholdUndecided || ts[0].Low != nil || !strings.Contains(ts[0].Reason, "6 or more decide") {
		t.Errorf("five windows: %+v", ts)
	}
	c.PerWindow = c.PerWindow[:6]
	c.PerWindow = append(c.PerWindow[:5], analysis.WindowFigures{Counted: true, HasLoad: true, Latency: analysis.Latency{P99: 4000}})
	if ts := judgeCell(c, plan.Thresholds{P99: time.Millisecond}); ts[0].Verdict != ThresholdFail {
		t.Errorf("six windows all above: %+v", ts)
	}
	if ts := judgeCell(analysis.Cell{Stack: "api", Case: "user"}, plan.Thresholds{P99: time.Millisecond}); ts[0].Verdict != ThresholdInvalid {
		t.Errorf("no window: %+v", ts)
	}
}

func TestVerdictLines(t *testing.T) {
	m := &Model{Cells: []analysis.Cell{thresholdCell()}}
	addThresholds(m, []plan.CaseThresholds{{Case: "user", Thresholds: plan.Thresholds{P99: time.Millisecond, P50: time.Second}}}, time.Minute)
	want := []string{
		"Decided: no step to call (a run of one stack); thresholds: 1 pass, 1 fail.",
		"Not decided: nothing.",
		"To decide: nothing left.",
	}
	if got := VerdictLines(m); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdict:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "\n> Decided: no step to call (a run of one stack); thresholds: 1 pass, 1 fail.\\\n> Not decided: nothing.\\\n") ||
		!strings.Contains(md.String(), "- api user c=8 p99 ≤ 1.00 ms: fail, median 4.85 ms") {
		t.Errorf("summary.md does not open with the verdict and the thresholds:\n%.800s", md.String())
	}
}

// Issue 31, item 3: latency limits are judged on the latency windows'
// corrected histograms where the run has them, and the check says so; one
// value per process, however many windows it served; and a window's
// failures count against the limit: a closed-loop window left out as
// invalid for its 3 % failures has its p99 at the timeout.
func TestThresholdsOnCorrectedLatencyPerProcess(t *testing.T) {
	closed := thresholdCell()
	open := analysis.Cell{Stack: "api", Case: "user", Concurrency: 8, Windows: 8}
	for i := range 8 {
		open.PerWindow = append(open.PerWindow, analysis.WindowFigures{Round: i + 1, Process: i + 1, Counted: true, HasLoad: true,
			Latency: analysis.Latency{P99: 30_000 + 1000*float64(i)}, Flags: []journal.Flag{journal.FlagBehind}})
	}
	m := &Model{Cells: []analysis.Cell{closed}, LatencyCells: []analysis.Cell{open}}
	addThresholds(m, []plan.CaseThresholds{{Case: "user", Thresholds: plan.Thresholds{P99: 25 * time.Millisecond}}}, time.Minute)
	tc := m.Thresholds[0]
	if tc.Source != ThresholdOpenLoop || tc.Verdict != ThresholdFail || tc.Values != 8 || !strings.Contains(ThresholdText(tc), "at the latency windows' rate (corrected)") {
		t.Errorf("p99 ≤ 25 ms with latency windows at 30–37 ms (behind, counted): %+v %s", tc, ThresholdText(tc))
	}

	// One value per process: two windows of each of six processes.
	pp := analysis.Cell{Stack: "api", Case: "user", Concurrency: 8}
	for i := range 12 {
		pp.PerWindow = append(pp.PerWindow, analysis.WindowFigures{Round: i/2 + 1, Process: i/2 + 1, Counted: true, HasLoad: true, Latency: analysis.Latency{P99: 2000}})
	}
	if ts := judgeCell(pp, plan.Thresholds{P99: 25 * time.Millisecond}); ts[0].Values != 6 || ts[0].Windows != 12 || ts[0].Verdict != ThresholdPass {
		t.Errorf("six processes of two windows: %+v", ts[0])
	}

	// Failures count against the limit: three of eight windows failed 3 %
	// of their requests (invalid, not counted), their fast successes aside.
	f := analysis.Cell{Stack: "api", Case: "user", Concurrency: 8}
	for i := range 8 {
		w := analysis.WindowFigures{Round: i + 1, Process: i + 1, Counted: true, HasLoad: true, Latency: analysis.Latency{P99: 2000}}
		if i%3 == 0 {
			w.Counted, w.ErrorRate, w.Flags = false, 0.03, []journal.Flag{journal.FlagInvalid}
		}
		f.PerWindow = append(f.PerWindow, w)
	}
	ts := judgeCell(f, plan.Thresholds{P99: 25 * time.Millisecond})
	if ts[0].Windows != 8 || ts[0].Verdict == ThresholdPass || ts[0].High == nil || *ts[0].High < 60_000 {
		t.Errorf("three windows with 3 %% failures: %+v; their p99 is the timeout, so the limit cannot pass", ts[0])
	}
}
