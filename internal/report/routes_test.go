package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
)

// A mix's cells show each route's share beside its weight's, its
// throughput, latency and failures, under the case's table in Markdown
// and HTML alike.
func TestMixRoutesRendered(t *testing.T) {
	m := &Model{Header: analysis.Header{Cases: []analysis.CaseInfo{{Name: "storefront"}}}, Cells: []analysis.Cell{{
		Stack: "a", Case: "storefront", Concurrency: 10, State: analysis.CellValid,
		Routes: []analysis.RouteFigures{
			{Name: "user", WeightShare: 0.6, Share: 0.601, ThroughputRPS: 1200, Attempts: 100, Latency: analysis.Latency{P50: 900, P99: 2500}},
			{Name: "create-order", WeightShare: 0.1, Share: 0.099, ThroughputRPS: 190, Attempts: 100, ErrorRate: 0.05,
				Errors: map[string]int64{"status_500": 5}, Latency: analysis.Latency{P50: 4000, P99: 9000}},
		},
	}}}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| stack | c | route | weight | share | req/s | p50 | p99 | failed |",
		"| a | 10 | user | 60.0 % | 60.1 % |",
		"| a | 10 | create-order | 10.0 % | 9.9 % |",
		"5.00 % (status_500 5)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	v := newHTMLView(m)
	if len(v.Cases) != 1 || len(v.Cases[0].Routes) != 2 || v.Cases[0].Routes[1][2] != "create-order" {
		t.Errorf("the HTML view's routes: %+v", v.Cases)
	}
}

// A flow's cells show flows per second, the flow's latency, the failed
// flows by step and class, and each step.
func TestFlowRendered(t *testing.T) {
	m := &Model{Header: analysis.Header{Cases: []analysis.CaseInfo{{Name: "session"}}}, Cells: []analysis.Cell{{
		Stack: "a", Case: "session", Concurrency: 8, State: analysis.CellValid,
		Flow: &analysis.FlowFigures{FlowsPerSecond: 250, Completed: 1000, Failed: 3, Failures: map[string]int64{"login: status_401": 3},
			Latency: analysis.Latency{P50: 4000, P99: 12000},
			Steps:   []analysis.RouteFigures{{Name: "login", ThroughputRPS: 250, Latency: analysis.Latency{P50: 1000, P99: 3000}}}},
	}}}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| stack | c | flows/s |", "| a | 8 | 250 |", "3 (login: status_401 3)", "login 250, "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if v := newHTMLView(m); len(v.Cases[0].Flows) != 1 {
		t.Errorf("the HTML view's flows: %+v", v.Cases[0].Flows)
	}
}

// A mix's step shows each route's share: both sides' pooled p50 and p99
// with the change, its interval and whether it was called, and each
// side's failed share, in Markdown, HTML and JSON alike.
func TestMixRouteStepsRendered(t *testing.T) {
	lo, hi := -34.0, -22.0
	clo, chi := 31.0, 52.0
	m := &Model{Header: analysis.Header{Cases: []analysis.CaseInfo{{Name: "storefront"}}}, Steps: []analysis.Step{{
		Kind: analysis.StepAdjacent, From: "plain", To: "cached", Case: "storefront", Concurrency: 8,
		Routes: []analysis.RouteStep{
			{Name: "list", Source: analysis.RouteSourceClosedLoop, FromP50Micros: 2000, ToP50Micros: 1400, FromP99Micros: 5000, ToP99Micros: 3500,
				P50: analysis.Change{Call: stats.CallNotCalled, EstimatePct: -29.5, CILowPct: &lo, CIHighPct: &hi, Confidence: 0.95, LowerIsBetter: true},
				P99: analysis.Change{Call: stats.CallNotCalled, EstimatePct: -30, CILowPct: &lo, CIHighPct: &hi, Confidence: 0.95, LowerIsBetter: true}},
			{Name: "create", Source: analysis.RouteSourceClosedLoop, FromP50Micros: 6000, ToP50Micros: 8400, FromP99Micros: 9000, ToP99Micros: 13000, ToErrorRate: 0.02,
				P50: analysis.Change{Call: stats.CallNotCalled, EstimatePct: 40, CILowPct: &clo, CIHighPct: &chi, Confidence: 0.95, LowerIsBetter: true},
				P99: analysis.Change{Call: stats.CallNotCalled, EstimatePct: 44, CILowPct: &clo, CIHighPct: &chi, Confidence: 0.95, LowerIsBetter: true}},
		},
	}}}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"outside the run's false-call family",
		"| step | c | route | p50 | p50 change (interval) | p99 | p99 change (interval) | failed | from |",
		"| plain → cached | 8 | list | 2.00 ms → 1.40 ms | shown: -29.5 % (-34.0 … -22.0 %, 95 % interval) |",
		"| plain → cached | 8 | create | 6.00 ms → 8.40 ms | shown: +40.0 % (+31.0 … +52.0 %, 95 % interval) |",
		"0.0 % → 2.0 % | closed loop |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	v := newHTMLView(m)
	if len(v.Cases) != 1 || len(v.Cases[0].RouteSteps) != 2 || v.Cases[0].RouteSteps[1][2] != "create" || v.Cases[0].RouteStepNote == "" {
		t.Errorf("the HTML view's route steps: %+v", v.Cases)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	if r := back.Steps[0].Routes; len(r) != 2 || r[1].Name != "create" || r[1].ToErrorRate != 0.02 || r[0].Source != analysis.RouteSourceClosedLoop ||
		r[0].P99.Call != stats.CallNotCalled || r[0].P99.CILowPct == nil || *r[0].P99.CILowPct != lo {
		t.Errorf("the JSON's route steps: %+v", r)
	}
}
