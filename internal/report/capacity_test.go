package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// capacitySearch makes one stack's index-th search on the fixture's user
// case: a climb, a bisection to the bracket [capRPS, failRPS) and confirm
// windows achieving the rates given, or with confirm empty a search out of
// budget.
func capacitySearch(res *journal.Results, stack string, index int, capRPS, failRPS float64, confirm []float64, cores float64) {
	key := journal.CapacitySearchKey(stack, "user", index)
	add := func(phase string, rate, achieved float64, pass bool, p99 int64) {
		n := len(res.CapacityProbes(key)) + 1
		res.Capacity.Probes = append(res.Capacity.Probes, journal.CapacityProbe{Search: key, SearchIndex: index, Stack: stack, Case: "user", SLO: "p99=20ms", ClosedLoopRPS: 12000,
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
	res.Capacity.Searches = append(res.Capacity.Searches, journal.CapacitySearch{Search: key, SearchIndex: index, Stack: stack, Case: "user", Time: fixtureStart, Report: rep})
}

// nethttpCapacities are the confirmed rates of nethttp's four searches,
// each bracket 2 % wide: their midpoints are 1 % above, 8,080, 7,979,
// 8,181 and 8,029.5 req/s, and the median (the lower middle one) is the
// fourth search's. chi's searches find 12.5 % more each.
var nethttpCapacities = []float64{8000, 7900, 8100, 7950}

// capacityResults is the fixture run with a capacity phase on user, four
// searches a stack: nethttp confirmed four times (capacity 8,029.5 req/s),
// chi four times at 12.5 % more, gin out of budget every time.
func capacityResults(t *testing.T) *journal.Results {
	t.Helper()
	fixtureModel(t) // rewrites the fixture under -update
	res, err := journal.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	res.Plan.Plan.Capacity = &plan.Capacity{Cases: []plan.CapacityCase{{Case: "user", SLO: "p99=20ms"}}, Resolution: 0.02, Confirmations: 3,
		Retries: 1, Probe: 2 * time.Second, Warmup: 500 * time.Millisecond, Budget: 3 * time.Minute, Connections: 256, StartFraction: 0.5, MaxErrorShare: 0.001, Searches: 4}
	for i, c := range nethttpCapacities {
		capacitySearch(res, "nethttp", i+1, c, c*1.02, []float64{c - 4, c + 1, c + 3}, 0.9)
		capacitySearch(res, "chi", i+1, c*1.125, c*1.125*1.02, []float64{c*1.125 - 2, c * 1.125, c*1.125 + 1}, 1.5)
		capacitySearch(res, "gin", i+1, 7000, 7140, nil, 0.8)
	}
	return res
}

func TestCapacitySectionTableStepsAndCost(t *testing.T) {
	m, err := FromResults(capacityResults(t), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := m.Capacity
	if cs == nil || len(cs.Cases) != 1 || len(cs.Cases[0].Rows) != 3 || cs.Settings.Searches != 4 {
		t.Fatalf("capacity section %+v", cs)
	}
	nh := cs.Cases[0].Rows[0]
	mids := []float64{8080, 7979, 8181, 8029.5}
	if nh.Stack != "nethttp" || nh.Status != capacity.StatusConfirmed || nh.Searches != 4 || nh.Confirmed != 4 || len(nh.SearchCapacitiesRPS) != 4 ||
		nh.CapacityRPS != 8029.5 || nh.MedianSearch != 4 || nh.LastPassRPS != 7950 || nh.FirstFailRPS != 7950*1.02 ||
		nh.ServerCores != 0.9 || nh.RSSPeakBytes != 48<<20 || len(nh.Probes) != 4*7 || nh.ClosedLoopRPS != 12000 || len(nh.SearchResults) != 4 {
		t.Errorf("nethttp row %+v", nh)
	}
	for i, want := range mids {
		if got := nh.SearchCapacitiesRPS[i]; abs(got-want) > 1e-9 || abs(nh.SearchResults[i].MidpointRPS-want) > 1e-9 || nh.SearchResults[i].Index != i+1 {
			t.Errorf("nethttp search %d: capacity %v, want the bracket's middle %v", i+1, got, want)
		}
	}
	if want := 1e6 * 1.8 * 3 / (2 * (7946 + 7951 + 7953)); abs(nh.CPUMicrosPerRequest-want) > 1e-3 {
		t.Errorf("CPU per request %v, want the median search's %v", nh.CPUMicrosPerRequest, want)
	}
	gin := cs.Cases[0].Rows[2]
	if gin.Status != capacity.StatusBudget || gin.CapacityRPS != 0 || gin.Confirmed != 0 || gin.LastPassRPS != 7000 || gin.FirstFailRPS != 7140 {
		t.Errorf("gin row %+v", gin)
	}
	steps := map[string]CapacityStep{}
	for _, s := range cs.Steps {
		steps[s.From+"→"+s.To] = s
	}
	up := steps["nethttp→chi"].Capacity
	if up.Call != stats.CallGain || abs(up.EstimatePct-12.5) > 1e-9 || !up.Bounded() || up.FromWindows != 4 || up.ToWindows != 4 {
		t.Fatalf("nethttp → chi: %+v", up)
	}
	// The interval is the two-sample Hodges–Lehmann interval of the
	// searches' capacities and nothing else: with 4 against 4 at α 0.05,
	// from the smallest to the largest ratio of a chi search to a nethttp
	// one.
	if lo, hi := 100*(1.125*7979/8181-1), 100*(1.125*8181/7979-1); abs(*up.CILowPct-lo) > 1e-9 || abs(*up.CIHighPct-hi) > 1e-9 || up.Confidence < 0.95 {
		t.Errorf("interval %.4f … %.4f %% (confidence %v), want %.4f … %.4f", *up.CILowPct, *up.CIHighPct, up.Confidence, lo, hi)
	}
	if !strings.Contains(up.Reason, "search capacities (4 and 4 searches)") {
		t.Errorf("reason %q", up.Reason)
	}
	if c := steps["chi→gin"].Capacity; c.Call != stats.CallInvalid || !strings.Contains(c.Reason, "gin has no confirmed capacity") {
		t.Errorf("chi → gin: %+v", c)
	}
	if cs.Cost == nil || len(cs.Cost.Inputs) != 3 || cs.Cost.Inputs[0].RPSPerCore != 8029.5 || abs(cs.Cost.Inputs[1].RPSPerCore-8029.5*1.125/1.5) > 1e-9 ||
		!strings.Contains(cs.Cost.Inputs[2].Problem, "no confirmed capacity") {
		t.Errorf("cost at the SLO: %+v", cs.Cost)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	for _, want := range []string{
		"## Capacity at the SLO", "### user (SLO p99=20ms)", "was searched 4 times, each search in a fresh process",
		"| nethttp | 8,030 rps | 3.50 ms | 14.0 ms | 0.90 |", "| 4 of 4: 7,979–8,181 rps | 7,950–8,109 rps |", "confirmed ×4; 41.6 s in all",
		"| gin | – | – | – | – | – | – | 0 of 4 | 7,000–7,140 rps |", "out of budget: only the bracket is known ×4",
		"| nethttp → chi | user | gain | +12.5 % (+9.7 … +15.3 %, 97.1 % interval) | 4 / 4 | over the two stacks' search capacities (4 and 4 searches), the 97.14 % interval excludes 0 and lies wholly past ±5 % |",
		"### Cost at capacity within the SLO", "SLO: ", " · saturation: ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	for _, gone := range []string{"widened", "confirmation windows' achieved"} {
		if strings.Contains(text, gone) {
			t.Errorf("summary.md still says %q", gone)
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
	// Every probe of every search has a p99 mark: a dot when it passed, a
	// cross when not.
	if got, want := strings.Count(html, "req/s: p50 "), 4*(7+7+4); got != want {
		t.Errorf("%d probe marks, want %d", got, want)
	}
	for _, want := range []string{`class="slo"`, `href="#capacity"`, `<section id="capacity">`, "capacity 8,030 req/s", "nethttp (search 3) climb", "4 of 4: 7,979–8,181 rps", "search capacities"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"searches": 4`, `"confirmed_searches": 4`, `"search_capacities_rps": [`, `"median_search": 4`, `"search_results": [`, `"midpoint_rps": 8080`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("report.json lacks %s", want)
		}
	}
}

// TestCapacityStepRestsOnTheSearches: a step's interval is the
// Hodges–Lehmann interval of the per-search capacities, however tight each
// search's confirmation windows were: searches that vary by 15 % leave a
// +12 % difference undecided, and one search a side (a journal from
// before repeated searches) cannot decide anything.
func TestCapacityStepRestsOnTheSearches(t *testing.T) {
	capacityChange := func(from, to CapacityRow, minEffect, alpha float64) analysis.Change {
		return analysis.CapacityChange(from.side(), to.side(), analysis.CapacityVerdict(from.side(), to.side(), minEffect, alpha), alpha)
	}
	row := func(stack string, caps ...float64) CapacityRow {
		return CapacityRow{Stack: stack, Status: capacity.StatusConfirmed, Searches: len(caps), Confirmed: len(caps), SearchCapacitiesRPS: caps}
	}
	from, to := row("a", 8000, 9200, 8400, 7900), row("b", 9000, 10300, 9400, 8800)
	c := capacityChange(from, to, 0.05, 0.05)
	want, _ := stats.HodgesLehmann(from.SearchCapacitiesRPS, to.SearchCapacitiesRPS, 0.05)
	if c.Call != stats.CallUndecided || abs(c.EstimatePct-100*want.Estimate) > 1e-9 || abs(*c.CILowPct-100*want.Lo) > 1e-9 || abs(*c.CIHighPct-100*want.Hi) > 1e-9 || c.Confidence != want.Confidence {
		t.Errorf("spread searches: %+v, want the plain interval %+v", c, want)
	}
	one := capacityChange(row("a", 8000), row("b", 11000), 0.05, 0.05)
	if one.Call != stats.CallUndecided || one.Bounded() || !strings.Contains(one.Reason, "too few searches (1 and 1 searches)") || !strings.Contains(one.Reason, "5 a side can, even with one search lost (capacity: searches: 5)") {
		t.Errorf("one search a side: %+v", one)
	}
	if got := CallText(one); !strings.Contains(got, "(no finite interval with 1 and 1 searches)") {
		t.Errorf("call text %q counts windows", got)
	}
	three := capacityChange(row("a", 8000, 8010, 8020), row("b", 11000, 11010, 11020), 0.05, 0.05)
	if three.Call != stats.CallUndecided || three.Bounded() {
		t.Errorf("three searches a side cannot give a finite interval at α 0.05: %+v", three)
	}
	partial := to
	partial.Searches = 5
	if c := capacityChange(from, partial, 0.05, 0.05); !strings.Contains(c.Reason, "4 and 4 of 5 searches") {
		t.Errorf("a side with an unconfirmed search: %q", c.Reason)
	}
}

// A search with probes but no end (a stopped run) is shown as stopped,
// with the bracket its probes give, and the run is not finished.
func TestStoppedCapacitySearch(t *testing.T) {
	res := capacityResults(t)
	// gin's last search never ended, and chi's last has no record at all.
	var keep []journal.CapacitySearch
	for _, s := range res.Capacity.Searches {
		if s.SearchIndex != 4 || s.Stack == "nethttp" {
			keep = append(keep, s)
		}
	}
	res.Capacity.Searches = keep
	var probes []journal.CapacityProbe
	for _, p := range res.Capacity.Probes {
		if p.SearchIndex != 4 || p.Stack != "chi" {
			probes = append(probes, p)
		}
	}
	res.Capacity.Probes = probes
	m, err := FromResults(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gin, chi := m.Capacity.Cases[0].Rows[2], m.Capacity.Cases[0].Rows[1]
	if !strings.Contains(strings.Join(m.Header.Warnings, "\n"), "2 of 12 searches did not end") {
		t.Errorf("no warning of the unended searches: %v", m.Header.Warnings)
	}
	if gin.Status != CapacityStopped || gin.LastPassRPS != 7000 || gin.FirstFailRPS != 7140 || m.Header.State != "stopped" || gin.SearchResults[3].Status != CapacityStopped {
		t.Errorf("gin %s %v–%v, run %s; want stopped 7000–7140 and a stopped run", gin.Status, gin.LastPassRPS, gin.FirstFailRPS, m.Header.State)
	}
	// chi still has a capacity from the three searches that ended, and the
	// step says what it rests on.
	if chi.Status != capacity.StatusConfirmed || chi.Confirmed != 3 || chi.SearchResults[3].Status != CapacityMissing {
		t.Errorf("chi %+v", chi)
	}
	if c := m.Capacity.Steps[0].Capacity; !strings.Contains(c.Reason, "4 and 3 of 4 searches") && !strings.Contains(c.Reason, "(4 and 3 of 4 searches)") {
		t.Errorf("nethttp → chi rests on %q", c.Reason)
	}
	// A plan without a capacity phase has no section.
	res.Plan.Plan.Capacity = nil
	if m, _ := FromResults(res, BuildOptions{}); m.Capacity != nil {
		t.Errorf("a section without a capacity phase")
	}
}

// An adaptive run's throughput looks each get a share of α; the capacity
// steps are one decision and keep α: 4 searches a side still decide.
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

// TestCapacityFromAJournalBeforeRepeatedSearches: a journal with one
// search a stack × case, keyed and recorded without an index and a plan
// without searches, still reports: one search each, the capacity the
// middle of its bracket, and the step undecided for want of searches.
func TestCapacityFromAJournalBeforeRepeatedSearches(t *testing.T) {
	fixtureModel(t)
	res, err := journal.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	res.Plan.Plan.Capacity = &plan.Capacity{Cases: []plan.CapacityCase{{Case: "user", SLO: "p99=20ms"}}, Resolution: 0.02, Confirmations: 4,
		Retries: 1, Probe: 2 * time.Second, Warmup: 500 * time.Millisecond, Budget: 3 * time.Minute, Connections: 256, StartFraction: 0.5, MaxErrorShare: 0.001}
	for _, st := range []struct {
		name string
		rps  float64
	}{{"nethttp", 8000}, {"chi", 9000}, {"gin", 9500}} {
		capacitySearch(res, st.name, 1, st.rps, st.rps*1.02, []float64{st.rps, st.rps, st.rps, st.rps}, 1)
	}
	for i := range res.Capacity.Probes {
		res.Capacity.Probes[i].SearchIndex = 0
	}
	for i := range res.Capacity.Searches {
		res.Capacity.Searches[i].SearchIndex = 0
	}
	m, err := FromResults(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nh := m.Capacity.Cases[0].Rows[0]
	if m.Capacity.Settings.Searches != 1 || nh.Searches != 1 || nh.Confirmed != 1 || nh.CapacityRPS != 8080 || nh.SearchResults[0].Index != 1 || m.Header.State != "finished" {
		t.Errorf("old journal: settings %+v, nethttp %+v, state %s", m.Capacity.Settings, nh, m.Header.State)
	}
	if c := m.Capacity.Steps[0].Capacity; c.Call != stats.CallUndecided || !strings.Contains(c.Reason, "too few searches") {
		t.Errorf("old journal's step: %+v", c)
	}
}

// TestCapacityRowKeepsAMeasuredStart: when no window of the cell counted,
// a search measures its start with a closed-loop estimate probe and its
// later probes record 0 as the run's figure; the row shows what the
// estimate measured (it showed 0 rps, the last probe's record).
func TestCapacityRowKeepsAMeasuredStart(t *testing.T) {
	res := capacityResults(t)
	for i, p := range res.Capacity.Probes {
		if p.Stack == "gin" {
			res.Capacity.Probes[i].ClosedLoopRPS = 0
			if p.Probe.Index == 1 {
				res.Capacity.Probes[i].Probe.Phase, res.Capacity.Probes[i].Probe.ThroughputRPS = capacity.PhaseEstimate, 14000
			}
		}
	}
	m, err := FromResults(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gin := m.Capacity.Cases[0].Rows[2]; gin.ClosedLoopRPS != 14000 {
		t.Errorf("gin started from %v req/s, want the estimate's 14000", gin.ClosedLoopRPS)
	}
	if nh := m.Capacity.Cases[0].Rows[0]; nh.ClosedLoopRPS != 12000 {
		t.Errorf("nethttp started from %v req/s, want the run's 12000", nh.ClosedLoopRPS)
	}
}

// Issue 31, item 4: capacity steps are a false-call family of their own
// (under family run), a gain's reason says what the interval does (not
// "the estimate reaching the minimum effect"), and the default of 5
// searches a side still gives a finite interval when one search is lost.
func TestCapacityStepsAreAFamily(t *testing.T) {
	row := func(stack string, caps ...float64) CapacityRow {
		return CapacityRow{Stack: stack, Status: capacity.StatusConfirmed, Searches: 5, Confirmed: len(caps), SearchCapacitiesRPS: caps}
	}
	cases := []CapacityCase{{Case: "x", Rows: []CapacityRow{
		row("a", 8000, 8100, 7900, 8050, 7950),
		row("b", 9000, 9100, 8900, 9050), // one search lost
		row("c", 9020, 9110, 8890, 9060, 8950),
	}}}
	pairs := []analysis.StackPair{{Kind: analysis.StepAdjacent, From: "a", To: "b"}, {Kind: analysis.StepAdjacent, From: "b", To: "c"}, {Kind: analysis.StepOverall, From: "a", To: "c"}}
	steps := capacitySteps(cases, pairs, stats.FamilyRun, 0.05, 0.05)
	ab := steps[0].Capacity
	if ab.Call != stats.CallGain || !ab.Bounded() || ab.FamilyCalls != 3 || !strings.Contains(ab.Reason, "a false-call family of their own (3 calls") {
		t.Errorf("a → b, 5 against 4 searches, +12 %%: %+v; want a gain with a finite interval in a family of 3", ab)
	}
	if strings.Contains(ab.Reason, "estimate reaches") || !strings.Contains(ab.Reason, "interval excludes 0") {
		t.Errorf("reason %q; want what the interval does", ab.Reason)
	}
	if bc := steps[1].Capacity; bc.Call == stats.CallGain || bc.Call == stats.CallLoss {
		t.Errorf("b → c, alike: %s (%s)", bc.Call, bc.Reason)
	}
	if plan.DefaultCapacitySearches < 5 || stats.MinP(plan.DefaultCapacitySearches, plan.DefaultCapacitySearches-1) > 0.05 {
		t.Errorf("default of %d searches does not survive one lost search", plan.DefaultCapacitySearches)
	}
}
