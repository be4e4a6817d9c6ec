package report

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
)

// thresholdChecks are two judged checks of one stack (analysis judges
// them; analysis/thresholds_test.go): p99 ≤ 1 ms failed, p50 ≤ 1 s passed.
func thresholdChecks() []ThresholdCheck {
	lo, hi, zero, p50hi := 4.1, 5.4, 0.0, 5.4
	return []ThresholdCheck{
		{Stack: "api", Case: "user", Concurrency: 8, Metric: "p99", Unit: "ms", AtMost: true, Limit: 1, Source: ThresholdClosedLoop,
			Basis: analysis.BasisPooled, Estimate: 5.4, Low: &lo, High: &hi, Confidence: 0.975, Windows: 8, Values: 8, FamilySize: 2, Verdict: ThresholdFail},
		{Stack: "api", Case: "user", Concurrency: 8, Metric: "p50", Unit: "ms", AtMost: true, Limit: 1000, Source: ThresholdClosedLoop,
			Basis: analysis.BasisPooled, Estimate: 0, Low: &zero, High: &p50hi, Confidence: 0.975, Windows: 8, Values: 8, FamilySize: 2, Verdict: ThresholdPass},
	}
}

func TestThresholdText(t *testing.T) {
	ts := thresholdChecks()
	if want := "api user c=8 p99 ≤ 1.00 ms: fail, 5.40 ms of all requests (4.10 … 5.40 ms, 8 processes)"; ThresholdText(ts[0]) != want {
		t.Errorf("text %q, want %q", ThresholdText(ts[0]), want)
	}
	med := ThresholdCheck{Stack: "api", Case: "user", Concurrency: 8, Metric: "error_rate", Unit: "%", AtMost: true, Limit: 1,
		Basis: analysis.BasisMedian, Estimate: 0.2, Windows: 12, Values: 6, Verdict: ThresholdUndecided}
	if want := "api user c=8 error_rate ≤ 1.00 %: undecided, median 0.2 % (no finite interval with 6 processes, 12 windows)"; ThresholdText(med) != want {
		t.Errorf("text %q, want %q", ThresholdText(med), want)
	}
}

func TestVerdictLines(t *testing.T) {
	m := &Model{Thresholds: thresholdChecks()}
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
		!strings.Contains(md.String(), "- api user c=8 p99 ≤ 1.00 ms: fail, 5.40 ms of all requests") {
		t.Errorf("summary.md does not open with the verdict and the thresholds:\n%.800s", md.String())
	}
}

// Issue 43, item 7: the fixed-rate cost is shown with each stack's
// absolute CPU-µs per request and its rate, and beside it the cost near
// saturation, labelled with its loads and windows.
func TestCostLoadsText(t *testing.T) {
	fixed, sat := costLoadsText(&analysis.CostLoads{RateRPS: 209, FromFixedMicros: 812, ToFixedMicros: 1818, FromSatMicros: 420, ToSatMicros: 668,
		SatChangePct: 59, FromSatRPS: 1046, ToSatRPS: 657, SatWindows: 1, DependsOnLoad: true})
	if fixed != "812 → 1818 at 209 req/s" {
		t.Errorf("fixed %q", fixed)
	}
	if sat != "420 → 668 (+59.0 %) at 1,046 → 657 req/s, one window a stack; depends on load" {
		t.Errorf("saturation %q", sat)
	}
	if f, s := costLoadsText(nil); f != "–" || s != "–" {
		t.Errorf("without: %q %q", f, s)
	}
}
