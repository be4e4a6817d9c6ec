package run

import (
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

func TestSplitConnectionsAcrossGenerators(t *testing.T) {
	for _, c := range []struct {
		n, k int
		want []int
	}{{5, 2, []int{3, 2}}, {4, 2, []int{2, 2}}, {1, 2, []int{1}}, {7, 3, []int{3, 2, 2}}, {64, 1, []int{64}}} {
		if got := split(c.n, c.k); !slices.Equal(got, c.want) {
			t.Errorf("split(%d, %d) = %v; want %v", c.n, c.k, got, c.want)
		}
	}
}

// Starvation is judged per generator: one that waited for a CPU most of
// its window flags the window naming its host, and two that each waited
// under the share do not, though their waits sum over it.
func TestStarvationIsJudgedPerGenerator(t *testing.T) {
	part := func(wait float64) *load.Result {
		return &load.Result{Attempts: 100, Successes: 100, DurationSeconds: 1, GeneratorWaitSeconds: wait}
	}
	merged := func(parts ...*load.Result) *load.Result {
		m := &load.Result{DurationSeconds: 1}
		for _, p := range parts {
			m.Attempts += p.Attempts
			m.Successes += p.Successes
			m.GeneratorWaitSeconds += p.GeneratorWaitSeconds
		}
		return m
	}
	hosts := []string{"load1", "load2"}

	starved, idle := part(0.9), part(0)
	w := &journal.Window{}
	m := merged(starved, idle)
	judgeMerged(w, m, []*load.Result{starved, idle}, hosts)
	if !w.HasFlag(journal.FlagClientStarved) || !strings.Contains(strings.Join(w.Reasons, " "), "the load generator on load1 waited 0.90 s") {
		t.Errorf("one starved generator: flags %v, reasons %v; want client-starved naming load1", w.Flags, w.Reasons)
	}
	if m.GeneratorWaitSeconds != 0.9 {
		t.Errorf("the merged result's wait became %.2f s; judging must leave it as merged", m.GeneratorWaitSeconds)
	}

	w = &journal.Window{}
	a, b := part(0.5), part(0.5)
	judgeMerged(w, merged(a, b), []*load.Result{a, b}, hosts)
	if w.HasFlag(journal.FlagClientStarved) {
		t.Errorf("two generators each waiting half their window: %v; neither was starved", w.Reasons)
	}
}
