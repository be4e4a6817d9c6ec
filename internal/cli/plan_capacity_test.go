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
		"4 confirmation windows",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`windows [0-9ms]+, capacity searches up to [0-9hms]+\)`).MatchString(out) {
		t.Errorf("no capacity estimate in the total:\n%s", out)
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
