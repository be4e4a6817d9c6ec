package report

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

func placementResults(pl plan.Placement, cpus ...*journal.CPUs) (*journal.Results, []journal.Window) {
	res := &journal.Results{Plan: &journal.Plan{}, Environments: []journal.Environment{{AffinityCPUs: "0-7"}}}
	res.Plan.Plan.Protocol.Placement = pl
	var finals []journal.Window
	for _, c := range cpus {
		finals = append(finals, journal.Window{Final: true, CPUs: c})
	}
	return res, finals
}

func TestPlacementInTheHeader(t *testing.T) {
	lanes := plan.Placement{Mode: plan.PlacementLanes, Auto: true, Server: "0-3", Database: "4-5", Generator: "6-7"}
	planned := &journal.CPUs{Server: "0-3", Database: "4-5", Generator: "6-7"}
	strayed := &journal.CPUs{Server: "0-7", Database: "4-5", Generator: "6-7"}

	res, finals := placementResults(lanes, planned, planned)
	if got, want := placementLine(analysis.PlacementOf(res, finals)), "Placement: lanes (auto): server CPUs 0-3, database CPUs 4-5, generator CPUs 6-7 (the harness's mask: CPUs 0-7); read back from /proc at every window: server as planned, database as planned, generator as planned."; got != want {
		t.Errorf("lanes as planned:\n got %s\nwant %s", got, want)
	}
	res, finals = placementResults(lanes, planned, strayed, &journal.CPUs{Server: "0-3", Generator: "6-7"})
	got := placementLine(analysis.PlacementOf(res, finals))
	for _, want := range []string{"server CPUs 0-3 in 2 window(s), CPUs 0-7 in 1 window(s)", "database CPUs 4-5 in 2 window(s), not placed in 1 window(s)", "generator as planned"} {
		if !strings.Contains(got, want) {
			t.Errorf("lanes with strays: %s\nwant it to contain %q", got, want)
		}
	}
	res, finals = placementResults(plan.Placement{Mode: plan.PlacementShared})
	if got, want := placementLine(analysis.PlacementOf(res, finals)), "Placement: shared: the generator, the server and the database on every CPU (the harness's mask: CPUs 0-7)."; got != want {
		t.Errorf("shared:\n got %s\nwant %s", got, want)
	}
	res, finals = placementResults(plan.Placement{})
	if p := analysis.PlacementOf(res, finals); p != nil || placementLine(p) != "" {
		t.Errorf("a journal from before placement: %+v, %q; want no line", p, placementLine(p))
	}
}

func TestCompareWarnsOfAnotherPlacement(t *testing.T) {
	lanes := &analysis.Placement{Placement: plan.Placement{Mode: plan.PlacementLanes, Server: "0", Database: "0", Generator: "1"}}
	autoLanes := &analysis.Placement{Placement: lanes.Placement}
	autoLanes.Auto = true
	shared := &analysis.Placement{Placement: plan.Placement{Mode: plan.PlacementShared, Auto: true}}
	warns := func(a, b *analysis.Placement) []string {
		ma, mb := &Model{}, &Model{}
		ma.Header.State, mb.Header.State = "finished", "finished"
		ma.Header.Placement, mb.Header.Placement = a, b
		return compareWarnings(ma, mb)
	}
	if w := warns(nil, shared); len(w) != 0 {
		t.Errorf("a journal from before placement and a shared run: %q", w)
	}
	if w := warns(lanes, autoLanes); len(w) != 0 {
		t.Errorf("the same lanes, once chosen by auto: %q", w)
	}
	want := "different placements (A: shared; B: lanes: server CPU 0, database CPU 0, generator CPU 1): the processes had other CPUs to run on"
	if w := warns(shared, lanes); len(w) != 1 || w[0] != want {
		t.Errorf("shared against lanes: %q, want %q", w, want)
	}
}

func TestPlacementInTheFooter(t *testing.T) {
	res, _ := placementResults(plan.Placement{Mode: plan.PlacementLanes, Server: "0-3", Database: "4-5", Generator: "6-7"})
	got := map[string]string{}
	for _, f := range append(protocolFields(res), environmentFields(res)...) {
		got[f.Name] = f.Value
	}
	if got["placement"] != "lanes: server CPUs 0-3, database CPUs 4-5, generator CPUs 6-7" || got["affinity mask"] != "0-7" {
		t.Errorf("footer placement %q, affinity mask %q", got["placement"], got["affinity mask"])
	}
}

// A run on an OS without CPU affinity (macOS) says why it has no lanes.
func TestPlacementLineWithoutAffinity(t *testing.T) {
	p := &analysis.Placement{Placement: plan.Placement{Mode: plan.PlacementShared, Auto: true, NoAffinity: true}}
	if got, want := placementLine(p), "Placement: shared: the generator, the server and the database on every CPU; this OS has no CPU affinity, so no lanes."; got != want {
		t.Errorf("placementLine = %q, want %q", got, want)
	}
}

// A stack that ran in a container is named in the header, with how it was
// measured.
func TestContainersLine(t *testing.T) {
	if got := containersLine(nil); got != "" {
		t.Errorf("no container stack: %q", got)
	}
	got := containersLine([]analysis.ContainerStack{{Stack: "gin", Image: "stackbench-gin"}})
	if !strings.HasPrefix(got, "Containers: gin (image stackbench-gin) ran in a container") || !strings.Contains(got, "cgroup") || !strings.Contains(got, "not as foreign CPU") {
		t.Errorf("containersLine = %q", got)
	}
}
