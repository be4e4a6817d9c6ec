package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
)

// capacityFile is a one-round saas-slice file with a capacity section of
// short probes.
func capacityFile(admin, cases, capacity, stacks string) string {
	return saasFile("database: "+admin+"\nprofile: quick\n", `  concurrency: [8]
  warmup: 200ms
  window: 500ms
  rounds: 1
  cases: `+cases+`
`, stacks) + "capacity:\n" + capacity
}

// A run with a capacity section searches every stack × case with an SLO
// after the windows: each probe journaled with its measurement (server
// CPU and memory, the orders table reset before each probe of the
// inserting case, a checkpoint), starting from half the cell's
// closed-loop median, and each search's end journaled.
func TestRunSearchesCapacityAfterTheWindows(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, capacityFile(admin, "[user, order]", `  cases: {user: p99=50ms, order: p99=200ms}
  probe: 300ms
  warmup: 100ms
  budget: 2500ms
  confirm: 2
  resolution: 25%
`, refStacks()))
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := finals(t, dir)
	for _, stack := range []string{"first", "second"} {
		for _, cas := range []string{"user", "order"} {
			key := journal.CapacityKey(stack, cas)
			s, ok := res.CapacitySearch(key)
			if !ok {
				t.Errorf("%s: no end record", key)
				continue
			}
			probes := res.CapacityProbes(key)
			if len(probes) < 2 {
				t.Errorf("%s: %d probes (status %s, %s)", key, len(probes), s.Report.Status, s.Error)
				continue
			}
			median := byKey["r1/"+stack+"/"+cas+"/c8"].Load.ThroughputRPS // one window: its own median
			if p := probes[0]; p.ClosedLoopRPS != median || p.Probe.RateRPS != median/2 || p.Probe.Phase != capacity.PhaseClimb {
				t.Errorf("%s: first probe %s at %.1f from %.1f; want the climb at half the window's %.1f", key, p.Probe.Phase, p.Probe.RateRPS, p.ClosedLoopRPS, median)
			}
			if s.Report.Status != capacity.StatusConfirmed && s.Report.Status != capacity.StatusBudget {
				t.Errorf("%s: status %s (%s)", key, s.Report.Status, s.Error)
			}
			if s.Report.ElapsedSeconds > 3.5 { // the budget and one probe's overhead misjudged
				t.Errorf("%s: the search took %.1f s of a 2.5 s budget", key, s.Report.ElapsedSeconds)
			}
			pids := map[int]bool{}
			for i, p := range probes {
				w := p.Window
				pids[w.Process.PID] = true
				if p.Probe.Index != i+1 || w.Key != key+"/p"+itoa(i+1) || w.Load == nil || w.Concurrency != 256 {
					t.Errorf("%s probe %d: index %d key %s load %v connections %d", key, i+1, p.Probe.Index, w.Key, w.Load != nil, w.Concurrency)
					continue
				}
				if w.Load.Mode != "open" || w.Load.Rate != p.Probe.RateRPS {
					t.Errorf("%s: the generator ran %s at %v, the search asked %v", w.Key, w.Load.Mode, w.Load.Rate, p.Probe.RateRPS)
				}
				if w.Server.CPUSeconds <= 0 || w.Server.RSSPeakBytes <= 0 || w.DBBefore == nil {
					t.Errorf("%s: server %+v db %v", w.Key, w.Server, w.DBBefore)
				}
				if cas == "order" && w.DBBefore != nil && w.DBBefore.OrdersRows != 200000 {
					t.Errorf("%s: orders not reset before the probe: %d rows", w.Key, w.DBBefore.OrdersRows)
				}
			}
			if len(pids) != 1 || pids[byKey["r1/"+stack+"/"+cas+"/c8"].Process.PID] {
				t.Errorf("%s: probes on processes %v; want one fresh process, not the windows'", key, pids)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A run stopped in the middle of a capacity search and resumed goes on
// with that search from its journaled probes: none is measured again, the
// probe numbers go on, and the search ends once.
func TestResumedRunContinuesTheCapacitySearch(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, capacityFile(admin, "[user]", `  slo: p99=50ms
  probe: 300ms
  warmup: 100ms
  budget: 20s
  confirm: 2
  resolution: 25%
`, refStack("first")))
	dir := filepath.Join(t.TempDir(), "results")
	journalPath := filepath.Join(dir, journal.FileName)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for ctx.Err() == nil {
			b, _ := os.ReadFile(journalPath)
			if bytes.Count(b, []byte(`{"kind":"capacity_probe"`)) >= 2 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := runFile(t, ctx, path, dir, plan.Overrides{}, false)
	cancel()
	<-stopped
	if err == nil {
		t.Fatal("the first run finished before it was stopped")
	}
	key := journal.CapacityKey("first", "user")
	res, rerr := journal.ReadDir(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	before := res.CapacityProbes(key)
	if _, ended := res.CapacitySearch(key); ended || len(before) < 2 {
		t.Fatalf("stopped with %d probes, ended %v; want a search in progress", len(before), ended)
	}

	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, true); err != nil {
		t.Fatalf("resume: %v", err)
	}
	res, rerr = journal.ReadDir(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	after := res.CapacityProbes(key)
	if len(after) <= len(before) {
		t.Fatalf("%d probes after the resume, %d before", len(after), len(before))
	}
	seen := map[string]bool{}
	for i, p := range after {
		if want := key + "/p" + itoa(i+1); p.Window.Key != want || seen[p.Window.Key] {
			t.Errorf("probe %d: key %s (measured twice, or out of order); want %s", i+1, p.Window.Key, want)
		}
		seen[p.Window.Key] = true
		if i < len(before) && p.Window.StartedAt != before[i].Window.StartedAt {
			t.Errorf("probe %d changed", i+1)
		}
	}
	if len(res.Capacity.Searches) != 1 {
		t.Fatalf("%d end records, want 1", len(res.Capacity.Searches))
	}
	// The first probe after the resume is the one the search's rule asks
	// for after the journaled ones: replaying them through a search gives
	// the same next rate.
	resumed := after[len(before)].Probe
	if resumed.Index != len(before)+1 {
		t.Errorf("first probe after the resume has index %d, want %d", resumed.Index, len(before)+1)
	}
	var events []string
	for _, e := range res.Events {
		events = append(events, e.Msg)
	}
	if !strings.Contains(strings.Join(events, "\n"), "resumed after "+itoa(len(before))+" journaled probes") {
		t.Errorf("no resume event for the search:\n%s", strings.Join(events, "\n"))
	}
}
