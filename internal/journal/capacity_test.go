package journal

import (
	"path/filepath"
	"testing"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/load"
)

// ReadDir gathers capacity probes and searches' ends, and the lookups find
// one search's records among another's.
func TestReadDirGathersCapacityRecords(t *testing.T) {
	dir := t.TempDir()
	w, _, err := Create(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	a, b := CapacityKey("gin", "user"), CapacityKey("chi", "user")
	recs := []struct {
		kind Kind
		rec  any
	}{
		{KindPlan, Plan{RunID: "x"}},
		{KindCapacityProbe, CapacityProbe{Search: a, Stack: "gin", Case: "user", SLO: "p99=20ms",
			Probe:  capacity.Probe{Index: 1, Phase: capacity.PhaseClimb, RateRPS: 500, Pass: true},
			Window: Window{Key: a + "/p1", Load: &load.Result{Successes: 1000}, Server: Usage{CPUSeconds: 0.5}}}},
		{KindCapacityProbe, CapacityProbe{Search: b, Probe: capacity.Probe{Index: 1, RateRPS: 700}}},
		{KindCapacityProbe, CapacityProbe{Search: a, Probe: capacity.Probe{Index: 2, Phase: capacity.PhaseClimb, RateRPS: 1000}}},
		{KindCapacity, CapacitySearch{Search: a, Stack: "gin", Case: "user", Report: capacity.Report{Status: capacity.StatusBudget, LastPassRPS: 500, FirstFailRPS: 1000}}},
	}
	for _, r := range recs {
		if err := w.Append(r.kind, r.rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	res, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ps := res.CapacityProbes(a)
	if len(ps) != 2 || ps[0].Probe.RateRPS != 500 || ps[1].Probe.RateRPS != 1000 || ps[0].Window.Load.Successes != 1000 || ps[0].Window.Server.CPUSeconds != 0.5 {
		t.Fatalf("probes of %s: %+v", a, ps)
	}
	if s, ok := res.CapacitySearch(a); !ok || s.Report.Status != capacity.StatusBudget || s.Report.FirstFailRPS != 1000 {
		t.Errorf("search %s: %+v %v", a, s, ok)
	}
	if _, ok := res.CapacitySearch(b); ok {
		t.Errorf("search %s has no end record", b)
	}
}

// The searches of one stack × case: the first keeps the key of journals
// written before repeated searches, the others add their index; a record
// without an index is the first search's.
func TestCapacitySearchKeys(t *testing.T) {
	if got := CapacitySearchKey("gin", "user", 1); got != "capacity/gin/user" || got != CapacityKey("gin", "user") {
		t.Errorf("first search %s", got)
	}
	if got := CapacitySearchKey("gin", "user", 3); got != "capacity/gin/user/s3" {
		t.Errorf("third search %s", got)
	}
	if (CapacityProbe{}).Index() != 1 || (CapacitySearch{}).Index() != 1 || (CapacitySearch{SearchIndex: 2}).Index() != 2 {
		t.Error("a record's search index")
	}
}
