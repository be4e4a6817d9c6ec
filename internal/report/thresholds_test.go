package report

import (
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
	"testing"
	"time"

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
	addThresholds(m, []plan.CaseThresholds{{Case: "user", Thresholds: plan.Thresholds{P99: time.Millisecond, P50: time.Second, ThroughputRPS: 1040, ErrorRate: rate(0.0005)}}})
	got := map[string]ThresholdCheck{}
	for _, tc := range m.Thresholds {
		got[tc.Metric] = tc
	}
	// Eight windows: the narrowest order-statistic interval for the median
	// with at least 95 % coverage runs from the 1st to the 7th value
	// (1 − 1/256 − 9/256 = 96.1 %), 4.1 … 5.2 ms: wholly above 1 ms.
	p99 := got["p99"]
	if p99.Verdict != ThresholdFail || p99.Windows != 8 || *p99.Low != 4.1 || *p99.High != 5.2 || p99.Median != 4.85 || p99.Confidence != 1-10.0/256 {
		t.Errorf("p99 ≤ 1 ms: %+v (low %v high %v)", p99, *p99.Low, *p99.High)
	}
	if want := "api user c=8 p99 ≤ 1.00 ms: fail, median 4.85 ms (4.10 … 5.20 ms, 8 windows)"; ThresholdText(p99) != want {
		t.Errorf("text %q, want %q", ThresholdText(p99), want)
	}
	if got["p50"].Verdict != ThresholdPass {
		t.Errorf("p50 ≤ 1 s: %+v", got["p50"])
	}
	// Throughput 1000…1070: the interval 1010 … 1060 straddles 1040.
	if tp := got["throughput"]; tp.Verdict != ThresholdUndecided || tp.AtMost || !strings.Contains(tp.Reason, "straddles") {
		t.Errorf("throughput ≥ 1040: %+v", tp)
	}
	// The error rate counts the uncounted window too: nine values, 0 …
	// 0.08 %, interval 0.01 … 0.07 % against 0.05 %.
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
	addThresholds(m, []plan.CaseThresholds{{Case: "user", Thresholds: plan.Thresholds{P99: time.Millisecond, P50: time.Second}}})
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
