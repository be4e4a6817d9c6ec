package cli

import (
	"github.com/stackbench/stackbench/internal/analysis"
	"regexp"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/stats"
)

// plan lists the capacity searches and adds their estimate; a file
// without a capacity section says nothing of capacity.
func TestPlanShowsTheCapacityPhase(t *testing.T) {
	dir := writeComparison(t, "profile: quick\nprotocol: {cases: [user, order]}\ncapacity:\n  slo: p99=20ms\n  cases: {order: p99=50ms}\n  budget: 90s\n"+twoStacks)
	code, out, errOut := runMain(t, dir, benchDB, "plan")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"capacity at an SLO, after the windows: user p99=20ms, order p99=50ms × 2 stacks, each search within 1m30s",
		"5 searches per stack × case, each in a fresh process, the stacks taking turns in a balanced order",
		"3 confirmation windows",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`windows [0-9ms]+, capacity searches up to [0-9hms]+\)`).MatchString(out) {
		t.Errorf("no capacity estimate in the total:\n%s", out)
	}
	if strings.Contains(out, "no capacity step can have") {
		t.Errorf("a note on too few searches with the default:\n%s", out)
	}
	_, four, _ := runMain(t, writeComparison(t, "profile: quick\ncapacity: {slo: p99=20ms, searches: 4}\n"+twoStacks), benchDB, "plan")
	if !strings.Contains(four, "with 4 against 3 no capacity step can have a finite 95 % interval; give capacity: searches: 5 to survive one lost search") {
		t.Errorf("no note on 4 searches, which one lost search leaves undecidable:\n%s", four)
	}
	// Issue 43, item 4: three cases with an SLO make a family of three
	// capacity calls; with 4 searches a side the smallest p-value, 2/70,
	// is above 5 % ÷ 3, so none could be selected.
	_, wide, _ := runMain(t, writeComparison(t, "profile: quick\nprotocol: {cases: [user, order, list]}\ncapacity: {slo: p99=20ms, searches: 4}\n"+twoStacks), benchDB, "plan")
	if !strings.Contains(wide, "the capacity steps are a false-call family of 3 calls; with 4 searches a side the smallest p-value (0.0286) is above 0.05 ÷ 3, so no capacity step could be called a gain or a loss; give capacity: searches: 5 or more") {
		t.Errorf("no note on a capacity family too large to select:\n%s", wide)
	}
	if strings.Contains(out, "false-call family of") {
		t.Errorf("a family note with 5 searches over 2 cases:\n%s", out)
	}
	_, few, _ := runMain(t, writeComparison(t, "profile: quick\ncapacity: {slo: p99=20ms, searches: 3}\n"+twoStacks), benchDB, "plan")
	if !strings.Contains(few, "note: with 3 searches a side no capacity step can have a finite 95 % interval; give capacity: searches: 4 or more") {
		t.Errorf("no note on 3 searches:\n%s", few)
	}
	_, plain, _ := runMain(t, writeComparison(t, "profile: quick\n"+twoStacks), benchDB, "plan")
	if strings.Contains(plain, "capacity") {
		t.Errorf("a plan without a capacity section mentions capacity:\n%s", plain)
	}
	code, _, errOut = runMain(t, writeComparison(t, "capacity: {slo: p99}\n"+twoStacks), benchDB, "plan")
	if code != 2 || !strings.Contains(errOut, "stackbench.yaml:1:17: slo:") {
		t.Errorf("exit %d, stderr %s; want exit 2 and the line of the bad SLO", code, errOut)
	}
}

// After a run, each capacity says how many searches it rests on and their
// range, and each capacity step how many searches a side it used.
func TestPrintCapacityStepsSaysWhatEachFigureRestsOn(t *testing.T) {
	m := &report.Model{Capacity: &report.CapacitySection{
		Cases: []report.CapacityCase{{Case: "user", SLO: "p99=20ms", Rows: []report.CapacityRow{
			{Stack: "a", Status: capacity.StatusConfirmed, Searches: 4, Confirmed: 4, CapacityRPS: 8029.5, SearchCapacitiesRPS: []float64{8080, 7979, 8181, 8029.5},
				AtCapacity: &capacity.Figures{LatencyMicros: capacity.Percentiles{P99: 14000}}, ServerCores: 0.9, LastPassRPS: 7950, FirstFailRPS: 8109},
			{Stack: "b", Status: capacity.StatusConfirmed, Searches: 4, Confirmed: 3, CapacityRPS: 9000, SearchCapacitiesRPS: []float64{9000, 8900, 9100},
				AtCapacity: &capacity.Figures{LatencyMicros: capacity.Percentiles{P99: 15000}}, ServerCores: 1, LastPassRPS: 8950, FirstFailRPS: 9050},
		}}},
		Steps: []report.CapacityStep{{From: "a", To: "b", Case: "user", Capacity: analysis.Change{Call: stats.CallUndecided, EstimatePct: 12, FromWindows: 4, ToWindows: 3}}},
	}}
	var b strings.Builder
	printCapacitySteps(&b, m)
	for _, want := range []string{
		"a              8029.5 req/s (median of 4 searches, 7979.0–8181.0), p99 14.00 ms at it",
		"b              9000.0 req/s (median of 3 of 4 searches, 8900.0–9100.0)",
		"a → b user: ", "(4 / 3 searches)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
