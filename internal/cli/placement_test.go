package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/cpuset"
)

// TestPlanPlacement checks --placement end to end: the plan's line, its
// JSON, the lanes' warnings, and refusals that name the CPUs available.
func TestPlanPlacement(t *testing.T) {
	avail, err := cpuset.Affinity()
	if err != nil {
		t.Fatal(err)
	}
	dir := writeComparison(t, twoStacks)
	code, out, errOut := runMain(t, dir, benchDB, "plan", "--placement", "shared")
	if code != 0 || !strings.Contains(out, "placement    shared: every process on every CPU") {
		t.Errorf("--placement shared: exit %d, %s\n%s", code, errOut, out)
	}
	if len(avail) >= 2 {
		last := cpuset.Of(avail[len(avail)-1]).String()
		first := cpuset.Of(avail[0]).String()
		code, out, errOut = runMain(t, dir, benchDB, "plan", "--placement", "lanes:server="+first+":database="+first+":generator="+last)
		want := "placement    lanes: server CPU " + first + ", database CPU " + first + ", generator CPU " + last +
			"; the server and the database share CPU " + first + " (too few CPUs for three disjoint lanes, or the lists say so)" +
			"; the database is a server of yours (database: URL), which stackbench did not start and cannot pin"
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--placement lanes with lists: exit %d, %s\nwant %q in:\n%s", code, errOut, want, out)
		}
		code, out, _ = runMain(t, dir, benchDB, "plan", "-o", "json", "--placement", "lanes:server="+first+":database="+first+":generator="+last)
		var p struct {
			Protocol struct {
				Placement map[string]any `json:"placement"`
			} `json:"protocol"`
		}
		if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || p.Protocol.Placement["mode"] != "lanes" || p.Protocol.Placement["generator_cpus"] != last {
			t.Errorf("plan -o json placement: exit %d, %v, %+v", code, err, p.Protocol.Placement)
		}
	}
	outside := cpuset.Of(avail[len(avail)-1] + 1).String()
	code, _, errOut = runMain(t, dir, benchDB, "plan", "--placement", "lanes:server="+outside+":database=0:generator=0")
	if want := "--placement: the server's CPU " + outside + " is not available to this process, which may use " + avail.Describe(); code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("a CPU outside the mask: exit %d, %q; want 2 and %q", code, errOut, want)
	}
	code, _, errOut = runMain(t, dir, benchDB, "plan", "--placement", "pinned")
	if code != 2 || !strings.Contains(errOut, `--placement pinned: placement "pinned" is not known; write shared`) {
		t.Errorf("an unknown mode: exit %d, %q", code, errOut)
	}
}
