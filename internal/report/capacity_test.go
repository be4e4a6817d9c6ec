package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// capacitySearch makes one stack's search on the fixture's user case: a
// climb, a bisection to the bracket [capRPS, failRPS) and confirm windows
// achieving the rates given, or with confirm empty a search out of budget.
func capacitySearch(res *journal.Results, stack string, capRPS, failRPS float64, confirm []float64, cores float64) {
	key := journal.CapacityKey(stack, "user")
	add := func(phase string, rate, achieved float64, pass bool, p99 int64) {
		n := len(res.CapacityProbes(key)) + 1
		res.Capacity.Probes = append(res.Capacity.Probes, journal.CapacityProbe{Search: key, Stack: stack, Case: "user", SLO: "p99=20ms", ClosedLoopRPS: capRPS * 1.5,
			Probe: capacity.Probe{Index: n, Phase: phase, RateRPS: rate, ThroughputRPS: achieved, Pass: pass, WallSeconds: 2.6,
				LatencyMicros: capacity.Percentiles{P50: p99 / 4, P99: p99, SLO: p99}},
			Window: journal.Window{Key: fmt.Sprintf("%s/p%d", key, n), Stack: stack, Case: "user", Concurrency: 256,
				Load:   &load.Result{DurationSeconds: 2, ThroughputRPS: achieved, Successes: int64(2 * achieved)},
				Server: journal.Usage{Cores: cores, CPUSeconds: 2 * cores, RSSMeanBytes: 40 << 20, RSSPeakBytes: 48 << 20}}})
	}
	add(capacity.PhaseClimb, capRPS*0.75, capRPS*0.75, true, 3000)
	add(capacity.PhaseClimb, capRPS*1.5, capRPS*1.2, false, 900_000)
	add(capacity.PhaseBisect, failRPS, failRPS*0.99, false, 40_000)
	add(capacity.PhaseBisect, capRPS, capRPS, true, 12_000)
	rep := capacity.Report{Status: capacity.StatusBudget, LastPassRPS: capRPS, FirstFailRPS: failRPS, ElapsedSeconds: 10.4}
	if len(confirm) > 0 {
		for _, a := range confirm {
			add(capacity.PhaseConfirm, capRPS, a, true, 14_000)
		}
		rep.Status, rep.CapacityRPS = capacity.StatusConfirmed, capRPS
		rep.AtCapacity = &capacity.Figures{Windows: len(confirm), ThroughputRPS: capRPS, LatencyMicros: capacity.Percentiles{P50: 3500, P99: 14_000, SLO: 14_000}}
	}
	res.Capacity.Searches = append(res.Capacity.Searches, journal.CapacitySearch{Search: key, Stack: stack, Case: "user", Time: fixtureStart, Report: rep})
}

// capacityResults is the fixture run with a capacity phase on user:
// nethttp confirmed at 8,000 rps, chi at 9,000 (12.5 % more, each bracket
// 2 % wide), gin out of budget.
func capacityResults(t *testing.T) *journal.Results {
	t.Helper()
	fixtureModel(t) // rewrites the fixture under -update
	res, err := journal.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	res.Plan.Plan.Capacity = &plan.Capacity{Cases: []plan.CapacityCase{{Case: "user", SLO: "p99=20ms"}}, Resolution: 0.02, Confirmations: 4,
		Retries: 1, Probe: 2 * time.Second, Warmup: 500 * time.Millisecond, Budget: 3 * time.Minute, Connections: 256, StartFraction: 0.5, MaxErrorShare: 0.001}
	capacitySearch(res, "nethttp", 8000, 8160, []float64{7996, 8001, 8003, 7999}, 0.9)
	capacitySearch(res, "chi", 9000, 9180, []float64{8998, 9004, 9001, 8995}, 1.5)
	capacitySearch(res, "gin", 7000, 7140, nil, 0.8)
	return res
}

func TestCapacitySectionTableStepsAndCost(t *testing.T) {
	m, err := FromResults(capacityResults(t), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := m.Capacity
	if cs == nil || len(cs.Cases) != 1 || len(cs.Cases[0].Rows) != 3 {
		t.Fatalf("capacity section %+v", cs)
	}
	nh := cs.Cases[0].Rows[0]
	if nh.Stack != "nethttp" || nh.Status != capacity.StatusConfirmed || nh.CapacityRPS != 8000 || nh.ServerCores != 0.9 ||
		nh.RSSPeakBytes != 48<<20 || len(nh.ConfirmRPS) != 4 || len(nh.Probes) != 8 || nh.ClosedLoopRPS != 12000 {
		t.Errorf("nethttp row %+v", nh)
	}
	if want := 1e6 * 1.8 * 4 / (2 * (7996 + 8001 + 8003 + 7999)); abs(nh.CPUMicrosPerRequest-want) > 1e-3 {
		t.Errorf("CPU per request %v, want %v", nh.CPUMicrosPerRequest, want)
	}
	gin := cs.Cases[0].Rows[2]
	if gin.Status != capacity.StatusBudget || gin.CapacityRPS != 0 || gin.LastPassRPS != 7000 || gin.FirstFailRPS != 7140 {
		t.Errorf("gin row %+v", gin)
	}
	steps := map[string]CapacityStep{}
	for _, s := range cs.Steps {
		steps[s.From+"→"+s.To] = s
	}
	up := steps["nethttp→chi"].Capacity
	if up.Call != stats.CallGain || abs(up.EstimatePct-12.5) > 0.2 || !up.Bounded() {
		t.Fatalf("nethttp → chi: %+v", up)
	}
	// The interval holds the brackets: at least 2 % below and above the
	// windows' own ratio on each side.
	if *up.CILowPct > 100*(8995.0/8003/1.02-1)+1e-9 || *up.CIHighPct < 100*(9004.0/7996*1.02-1)-1e-9 {
		t.Errorf("interval %.2f … %.2f %% does not hold both brackets", *up.CILowPct, *up.CIHighPct)
	}
	if c := steps["chi→gin"].Capacity; c.Call != stats.CallInvalid || !strings.Contains(c.Reason, "gin has no confirmed capacity") {
		t.Errorf("chi → gin: %+v", c)
	}
	if cs.Cost == nil || len(cs.Cost.Inputs) != 3 || cs.Cost.Inputs[0].RPSPerCore != 8000 || cs.Cost.Inputs[1].RPSPerCore != 6000 ||
		!strings.Contains(cs.Cost.Inputs[2].Problem, "no confirmed capacity") {
		t.Errorf("cost at the SLO: %+v", cs.Cost)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	for _, want := range []string{
		"## Capacity at the SLO", "### user (SLO p99=20ms)",
		"| nethttp | 8,000 rps | 3.50 ms | 14.0 ms | 0.90 |",
		"| gin | – | – | – | – | – | – | 7,000–7,140 rps |", "out of budget",
		"| nethttp → chi | user | gain | +12.",
		"### Cost at capacity within the SLO", "SLO: ", " · saturation: ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, m); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if n := strings.Count(html, `<svg class="chart capacity"`); n != 1 {
		t.Errorf("%d capacity charts, want 1", n)
	}
	// Every probe has a p99 mark: a dot when it passed, a cross when not.
	if got, want := strings.Count(html, "req/s: p50 "), 8+8+4; got != want {
		t.Errorf("%d probe marks, want %d", got, want)
	}
	for _, want := range []string{`class="slo"`, `href="#capacity"`, `<section id="capacity">`, "capacity 8,000 req/s"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// A search with probes but no end (a stopped run) is shown as stopped,
// with the bracket its probes give, and the run is not finished.
func TestStoppedCapacitySearch(t *testing.T) {
	res := capacityResults(t)
	res.Capacity.Searches = res.Capacity.Searches[:2] // gin's search never ended
	m, err := FromResults(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gin := m.Capacity.Cases[0].Rows[2]
	if !strings.Contains(strings.Join(m.Header.Warnings, "\n"), "1 of 3 searches did not end") {
		t.Errorf("no warning of the unended search: %v", m.Header.Warnings)
	}
	if gin.Status != CapacityStopped || gin.LastPassRPS != 7000 || gin.FirstFailRPS != 7140 || m.Header.State != "stopped" {
		t.Errorf("gin %s %v–%v, run %s; want stopped 7000–7140 and a stopped run", gin.Status, gin.LastPassRPS, gin.FirstFailRPS, m.Header.State)
	}
	// A plan without a capacity phase has no section.
	res.Plan.Plan.Capacity = nil
	if m, _ := FromResults(res, BuildOptions{}); m.Capacity != nil {
		t.Errorf("a section without a capacity phase")
	}
}

// An adaptive run's throughput looks each get a share of α; the capacity
// steps are one decision and keep α: 4 windows a side still decide.
func TestCapacityStepsKeepAlphaInAnAdaptiveRun(t *testing.T) {
	res := capacityResults(t)
	pr := &res.Plan.Plan.Protocol
	pr.Adaptive, pr.Rounds, pr.MaxRounds = true, 4, 16
	m, err := FromResults(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Alpha >= stats.MinP(4, 4) {
		t.Fatalf("the per-look α %v would let 4 windows decide anyway", m.Header.Alpha)
	}
	if c := m.Capacity.Steps[0].Capacity; c.Call != stats.CallGain || c.Confidence < 0.95 {
		t.Errorf("nethttp → chi in an adaptive run: %+v", c)
	}
}

// TestCapacityStepWidenedByTheSpreadBetweenProcesses: one search a side is
// one process's, so a capacity step's interval also holds the spread a
// fresh process shows in the closed-loop cells; a +36 % difference between
// two searches is no longer a gain when the processes vary by 15 %, and
// with no known spread the step stays undecided.
func TestCapacityStepWidenedByTheSpreadBetweenProcesses(t *testing.T) {
	row := func(stack string, rps float64) CapacityRow {
		return CapacityRow{Stack: stack, Status: capacity.StatusConfirmed, CapacityRPS: rps, FirstFailRPS: rps * 1.02,
			ConfirmRPS: []float64{rps * 0.999, rps, rps * 1.001, rps * 1.0005}}
	}
	from, to := row("a", 8000), row("b", 10880)
	narrow := capacityChange(from, to, 0.01, 0.01, 0.05, 0.05)
	if narrow.Call != stats.CallGain {
		t.Fatalf("processes varying 1 %%: %+v, want a gain", narrow)
	}
	wide := capacityChange(from, to, 0.15, 0.15, 0.05, 0.05)
	if wide.Call != stats.CallUndecided || *wide.CILowPct >= *narrow.CILowPct || *wide.CIHighPct <= *narrow.CIHighPct ||
		!strings.Contains(wide.Reason, "spread between processes (closed-loop robust CV 15.0 % and 15.0 %)") {
		t.Errorf("processes varying 15 %%: %+v (narrow %v … %v)", wide, *narrow.CILowPct, *narrow.CIHighPct)
	}
	unknown := capacityChange(from, to, -1, 0.01, 0.05, 0.05)
	if unknown.Call != stats.CallUndecided || !strings.Contains(unknown.Reason, "too few windows to say") {
		t.Errorf("unknown spread: %+v", unknown)
	}
}
