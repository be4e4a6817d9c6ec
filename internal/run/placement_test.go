package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// TestLanesRunRecordsItsCPUs runs the reference server with placement:
// lanes (the default split of this host's CPUs) and checks that the
// journal holds the lanes in the plan, the harness's mask and the
// placement's warnings in the environment, and in every window the CPUs
// its server and generator were read back on: their lanes. The database is
// this test's shared server given by URL, which a run cannot place: the
// warning says so and no window claims a database lane.
func TestLanesRunRecordsItsCPUs(t *testing.T) {
	avail := twoCPUs(t)
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, runtest.SaasFile("database: "+admin+"\nprofile: quick\n", `  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 2
  cases: [health, user]
`, refStack("ref")))
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFileNoParity(t, context.Background(), path, dir, plan.Overrides{Placement: &plan.PlacementSpec{Mode: plan.PlacementLanes}}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	pl := res.RunPlan().Protocol.Placement
	lanes := cpuset.Split(cpuset.Cores(avail))
	if !pl.IsLanes() || pl.Server != lanes.Server.String() || pl.Generator != lanes.Generator.String() || pl.Database != lanes.Database.String() {
		t.Errorf("journaled placement %+v, want the default split %+v", pl, lanes)
	}
	env := res.Environments[len(res.Environments)-1]
	if env.AffinityCPUs != avail.String() {
		t.Errorf("environment affinity %q, want %q", env.AffinityCPUs, avail)
	}
	external := slices.ContainsFunc(env.Warnings, func(w string) bool { return strings.Contains(w, "the database is a server of yours") })
	if !external {
		t.Errorf("no warning that the external database is not placed: %q", env.Warnings)
	}
	if len(avail) == 2 && !slices.Contains(env.Warnings, "placement lanes: the server and the database share "+lanes.Server.Describe()+" (too few CPUs for three disjoint lanes, or the lists say so)") {
		t.Errorf("on 2 CPUs, no warning that the server and the database share a CPU: %q", env.Warnings)
	}
	if len(byKey) != 4 {
		t.Fatalf("%d windows, want 4", len(byKey))
	}
	for k, w := range byKey {
		if w.CPUs == nil {
			t.Errorf("%s: no CPUs read back", k)
			continue
		}
		if w.CPUs.Server != pl.Server || w.CPUs.Generator != pl.Generator || w.CPUs.Database != "" {
			t.Errorf("%s: read back server %q, generator %q, database %q; want %q, %q and none (not placed)", k, w.CPUs.Server, w.CPUs.Generator, w.CPUs.Database, pl.Server, pl.Generator)
		}
		if w.Load == nil || w.Load.Successes == 0 {
			t.Errorf("%s: no successes", k)
		}
	}
	for _, ev := range res.Events {
		if strings.Contains(ev.Msg, "not only on its lane") {
			t.Errorf("a party left its lane: %s", ev.Msg)
		}
	}
}

// TestResumeRefusesAnotherPlacement: a run resumed under a placement that
// resolves otherwise (as on a host with other CPUs) is refused, and the
// message says which placement each side has.
func TestResumeRefusesAnotherPlacement(t *testing.T) {
	twoCPUs(t)
	path := writeFile(t, flakyFile("[ok]", "  gate: off"))
	dir := filepath.Join(t.TempDir(), "results")
	shared := plan.Overrides{Placement: &plan.PlacementSpec{Mode: plan.PlacementShared}}
	if _, err := runFile(t, context.Background(), path, dir, shared, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	_, err := runFile(t, context.Background(), path, dir, plan.Overrides{Placement: &plan.PlacementSpec{Mode: plan.PlacementLanes}}, true)
	if err == nil || !strings.Contains(err.Error(), "the placement resolves to lanes: server") || !strings.Contains(err.Error(), "but the run was started with shared") {
		t.Errorf("resume under lanes of a shared run: %v", err)
	}
}

// TestCheckLaneWarnsOnceWhenAPartyLeftItsLane reads back a process that is
// not in its lane (this test, on its whole mask): the CPUs it found are
// returned, and the warning is raised once however often it is seen.
func TestCheckLaneWarnsOnceWhenAPartyLeftItsLane(t *testing.T) {
	avail := twoCPUs(t)
	var log strings.Builder
	r := newLocalSite((&runner{progress: newProgress(&log, false, 0)}).siteParts())
	lane := cpuset.Of(avail[0])
	for range 3 {
		if got := r.checkLane("server", "api", lane, []int{os.Getpid()}); got != avail.String() {
			t.Errorf("read back %q, want this process's mask %q", got, avail)
		}
	}
	want := "warning: placement lanes: the server's processes may run on " + avail.Describe() + ", not only on its lane, " + lane.Describe()
	if n := strings.Count(log.String(), want); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, log.String())
	}
	if got := r.checkLane("generator", "", avail, []int{os.Getpid()}); got != avail.String() || strings.Count(log.String(), "warning") != 1 {
		t.Errorf("a party in its lane: %q, log:\n%s", got, log.String())
	}
}

// twoCPUs returns this process's affinity mask, skipping the test when it
// holds fewer than the two CPUs that lanes need.
func twoCPUs(t *testing.T) cpuset.Set {
	t.Helper()
	avail, err := cpuset.Affinity()
	if err != nil {
		t.Fatal(err)
	}
	if len(avail) < 2 {
		t.Skipf("this process may use only %s; lanes need 2", avail.Describe())
	}
	return avail
}
