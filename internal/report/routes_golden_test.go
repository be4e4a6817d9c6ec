package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
)

// mixFlowModel is a run with a mix case (two stacks' routes, one route
// failing; a step whose routes are called, one a gain and one a loss, the
// other from latency windows) and a flow case (one cell with failed flows,
// one without), for the golden file of the tables routes.go builds.
func mixFlowModel() *Model {
	lo, hi := -34.0, -22.0
	clo, chi := 31.0, 52.0
	gain := analysis.Change{Call: stats.CallGain, EstimatePct: -29.5, CILowPct: &lo, CIHighPct: &hi, Confidence: 0.95, LowerIsBetter: true}
	loss := analysis.Change{Call: stats.CallLoss, EstimatePct: 40, CILowPct: &clo, CIHighPct: &chi, Confidence: 0.95, LowerIsBetter: true, Size: stats.SizeSmall}
	shown := analysis.Change{Call: stats.CallNotCalled, EstimatePct: 3, CILowPct: &lo, CIHighPct: &chi, Confidence: 0.95, LowerIsBetter: true}
	routes := func(failing float64) []analysis.RouteFigures {
		r := []analysis.RouteFigures{
			{Name: "user", WeightShare: 0.6, Share: 0.601, ThroughputRPS: 1200, Attempts: 600, Latency: analysis.Latency{P50: 900, P99: 2500}},
			{Name: "list", WeightShare: 0.3, Share: 0.3, ThroughputRPS: 600, Attempts: 300, Latency: analysis.Latency{P50: 1800, P99: 5200}},
			{Name: "create-order", WeightShare: 0.1, Share: 0.099, ThroughputRPS: 190, Attempts: 100, Latency: analysis.Latency{P50: 4000, P99: 9000}},
		}
		if failing > 0 {
			r[2].ErrorRate, r[2].Errors = failing, map[string]int64{"status_500": 5, "timeout": 2}
		}
		return r
	}
	flow := func(failed int64) *analysis.FlowFigures {
		f := &analysis.FlowFigures{FlowsPerSecond: 250, Completed: 1000, Latency: analysis.Latency{P50: 4000, P99: 12000},
			Steps: []analysis.RouteFigures{
				{Name: "login", ThroughputRPS: 250, Latency: analysis.Latency{P50: 1000, P99: 3000}},
				{Name: "like", ThroughputRPS: 247, Latency: analysis.Latency{P50: 1500, P99: 4100}},
			}}
		if failed > 0 {
			f.Failed, f.Failures = failed, map[string]int64{"login: status_401": 2, "like: timeout": failed - 2}
		}
		return f
	}
	return &Model{
		Header: analysis.Header{Cases: []analysis.CaseInfo{{Name: "storefront"}, {Name: "session"}}},
		Cells: []analysis.Cell{
			{Stack: "plain", Case: "storefront", Concurrency: 8, State: analysis.CellValid, Routes: routes(0)},
			{Stack: "cached", Case: "storefront", Concurrency: 8, State: analysis.CellValid, Routes: routes(0.07)},
			{Stack: "plain", Case: "session", Concurrency: 4, State: analysis.CellValid, Flow: flow(0)},
			{Stack: "cached", Case: "session", Concurrency: 4, State: analysis.CellValid, Flow: flow(5)},
		},
		Steps: []analysis.Step{{
			Kind: analysis.StepAdjacent, From: "plain", To: "cached", Case: "storefront", Concurrency: 8,
			Routes: []analysis.RouteStep{
				{Name: "list", Source: analysis.RouteSourceLatency, Called: true, FromP50Micros: 2000, ToP50Micros: 1400, FromP99Micros: 5000, ToP99Micros: 3500, P50: gain, P99: gain},
				{Name: "create-order", Source: analysis.RouteSourceClosedLoop, Called: true, FromP50Micros: 6000, ToP50Micros: 8400, FromP99Micros: 9000, ToP99Micros: 13000, ToErrorRate: 0.07, P50: loss, P99: shown},
			},
		}},
	}
}

// The tables of a mix's routes (inside its cells and inside its steps)
// and of a flow's cells, in Markdown and in the HTML view, held to a
// golden file: the fixture's goldens have no mix or flow case.
func TestMixAndFlowTablesGolden(t *testing.T) {
	m := mixFlowModel()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	got.WriteString("== Markdown\n")
	got.Write(md.Bytes())
	for _, cv := range newHTMLView(m).Cases {
		got.WriteString("== HTML view, case " + cv.Name + "\n")
		table := func(name, note string, head []string, rows [][]string) {
			got.WriteString("-- " + name + ": " + note + "\n" + strings.Join(head, " | ") + "\n")
			for _, r := range rows {
				got.WriteString(strings.Join(r, " | ") + "\n")
			}
		}
		table("routes", "", cv.RouteColumns, cv.Routes)
		table("route steps", cv.RouteStepNote, cv.RouteStepColumns, cv.RouteSteps)
		table("flows", "", cv.FlowColumns, cv.Flows)
	}
	checkGolden(t, "mixflow.txt", []byte(got.String()))
}
