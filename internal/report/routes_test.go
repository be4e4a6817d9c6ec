package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
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
