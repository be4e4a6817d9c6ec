package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/stats"
)

// latencyModel is a run of two stacks whose step's p99 rose 30 % at a
// fixed rate of 500 req/s, half of b's round-1 median.
func latencyModel() *Model {
	lo, hi := 21.0, 40.0
	loss := analysis.Change{Call: stats.CallLoss, Size: stats.SizeLarge, MinEffectPct: 5, EstimatePct: 30, CILowPct: &lo, CIHighPct: &hi, Pairs: 8, LowerIsBetter: true}
	same := analysis.Change{Call: stats.CallSame, EstimatePct: 0.4, Pairs: 8, LowerIsBetter: true}
	cell := func(stack string, p99 float64, behind int) analysis.Cell {
		c := analysis.Cell{Stack: stack, Case: "user", Concurrency: 32, State: analysis.CellValid, Windows: 8, Counted: 8 - behind,
			Throughput: analysis.Spread{Median: 500}, Latency: analysis.Latency{P50: 1200, P99: p99}}
		if behind > 0 {
			c.Flags = []analysis.Flag{{Name: journal.FlagBehind, Windows: behind}}
		}
		return c
	}
	return &Model{
		Header: analysis.Header{RunID: "r", Stacks: []string{"a", "b"}, Cases: []analysis.CaseInfo{{Name: "user"}}, Concurrency: []int{32},
			Latency: &analysis.LatencyInfo{Rate: "50%", FirstRound: 2, Planned: 16, Windows: 16, Behind: 1,
				Rates: []analysis.LatencyRateInfo{{Case: "user", Concurrency: 32, RateRPS: 500, Slowest: "b", SlowestRPS: 1000}}}},
		LatencyCells: []analysis.Cell{cell("a", 3000, 0), cell("b", 3900, 1)},
		Steps:        []analysis.Step{{Kind: analysis.StepAdjacent, From: "a", To: "b", Case: "user", Concurrency: 32, Throughput: analysis.Change{Call: stats.CallSame}, PerCPU: analysis.Change{Call: stats.CallSame}, P50: &same, P99: &loss}},
	}
}

// The latency calls show on every surface, in ms, a rise called a loss
// with its bound above 0; the history lists the latency cells smaller is
// better.
func TestLatencySection(t *testing.T) {
	m := latencyModel()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Latency at a fixed rate",
		"1 of 16 latency windows were flagged behind",
		"| user | 32 | 500 req/s | 50% of b's closed-loop median, 1,000 req/s |",
		"| user | 32 | a → b | same | +0.4 % (no finite interval with 8 pairs) | **loss (at least +5.0 %)** | +30.0 % (+21.0 … +40.0 %) |",
		"| user | 32 | b | valid | 8 (7) | 500 | 1.20 ms | 3.90 ms | 1 |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md.String())
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<section id="latency">`) || !strings.Contains(html.String(), `href="#latency"`) {
		t.Error("report.html has no latency section")
	}
	if v := VerdictLines(m)[0]; !strings.Contains(v, "latency at a fixed rate: 2 of 2 p50, p99 and cost calls decided (1 loss, 1 same)") {
		t.Errorf("verdict: %q", v)
	}
	lines := strings.Join(LatencyLines(m), "\n")
	if !strings.Contains(lines, "a → b user c=32: p50 same +0.4 %") || !strings.Contains(lines, "p99 loss +30.0 % (+21.0 … +40.0 %), wholly past the minimum effect of +5.0 %") {
		t.Errorf("terminal lines:\n%s", lines)
	}
	_, smaller := History(m)
	found := false
	for _, e := range smaller {
		if e.Name == "b user c=32 p99 at a fixed rate" && e.Unit == "ms" && e.Value == 3.9 {
			found = true
		}
	}
	if !found {
		t.Errorf("history, smaller is better: %+v", smaller)
	}
	checks, err := Judge(m.Steps, GateSpec{FailOn: []stats.Call{stats.CallLoss}, Metrics: []GateMetric{GateP50, GateP99}})
	if err != nil || len(checks) != 2 || checks[0].Failed || !checks[1].Failed || checks[1].Name() != "a → b user c=32 p99 latency at a fixed rate" {
		t.Errorf("gate on p50, p99: %+v, %v", checks, err)
	}
}
