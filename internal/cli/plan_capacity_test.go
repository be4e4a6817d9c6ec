package cli

import (
	"regexp"
	"strings"
	"testing"
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
