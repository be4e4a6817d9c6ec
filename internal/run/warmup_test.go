package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// warmupFile is a comparison file of the flaky server's case on conc
// connections with the protocol lines given (warm-up and rounds).
func warmupFile(cas string, conc string, protocol string) string {
	return `
workload:
  name: warmup
  cases:
    - {name: ` + cas + `, method: GET, path: /` + cas + `}
profile: quick
protocol:
  concurrency: [` + conc + `]
  window: 1s
  boot_starts: 0
  gate: off
` + protocol + `
stacks:
  - name: flaky
    dir: .
    start: ` + flakyBin + `
`
}

func runWarmup(t *testing.T, yaml string) map[string]journal.Window {
	t.Helper()
	path := writeFile(t, yaml)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFileOpts(t, context.Background(), path, dir, plan.Overrides{}, false, true); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := runtest.Finals(t, dir)
	return byKey
}

// busyHostCores is the foreign CPU above which a window's trend is put
// down to the host, not the server.
const busyHostCores = 0.5

// A server that speeds up over its first 2.5 s (a runtime still
// compiling): the warm-up waits for it in every fresh process — steady
// after the ramp, or, when the shared host is too noisy for the slices to
// agree, at the cap and flagged — and a steady window is counted and,
// bar a stall of the host, shows no trend.
func TestWarmupWaitsForARampingServer(t *testing.T) {
	byKey := runWarmup(t, warmupFile("ramp", "16", "  warmup: 1s\n  warmup_max: 5s\n  rounds: 2\n"))
	clean := 0
	for key, w := range byKey {
		switch {
		case w.Load == nil:
			t.Errorf("%s: no load result: %v", key, w.Reasons)
		case w.Load.WarmupSeconds < 2.25:
			t.Errorf("%s: the warm-up ended %q after %.2f s, inside the 2.5 s ramp (slices %v)", key, w.Load.WarmupEnd, w.Load.WarmupSeconds, w.Load.WarmupSlices)
		case w.Load.WarmupEnd == "cap" && !w.HasFlag(journal.FlagNotSteady):
			t.Errorf("%s: capped warm-up not flagged: %v", key, w.Flags)
		case !w.Valid():
			t.Errorf("%s not counted: %v", key, w.Reasons)
		case w.HasFlag(journal.FlagNotSteady):
		case !w.HasFlag(journal.FlagTrend):
			clean++
		case w.ForeignCores > busyHostCores:
			// A trend on a host this busy is the host's: counted as
			// clean only for the warm-up, and said.
			t.Logf("%s: steady after %.2f s, trend on a host with %.2f cores of foreign CPU: %v", key, w.Load.WarmupSeconds, w.ForeignCores, w.Reasons)
			clean++
		}
	}
	if clean == 0 {
		t.Errorf("no window came out steady and without a trend (on a quiet host): %v", byKey)
	}
}

// The same server with a cap inside its ramp: the window is measured at
// the cap, flagged not_steady, and still counted.
func TestWarmupCapFlagsNotSteady(t *testing.T) {
	byKey := runWarmup(t, warmupFile("ramp", "16", "  warmup: 1s\n  warmup_max: 1500ms\n  rounds: 1\n"))
	w := byKey["r1/flaky/ramp/c16"]
	if w.Load == nil || w.Load.WarmupEnd != "cap" || w.Load.WarmupSeconds != 1.5 || !w.HasFlag(journal.FlagNotSteady) || !w.Valid() {
		t.Fatalf("capped warm-up: %+v, flags %v, reasons %v; want not_steady at 1.5 s, counted", w.Load, w.Flags, w.Reasons)
	}
	if !strings.Contains(strings.Join(w.Reasons, " "), "cap of 1.50 s") {
		t.Errorf("the reason does not say the cap: %v", w.Reasons)
	}
}

// A route of 300 ms on 4 connections with a 200 ms floor: nothing
// completes in the floor, which is not a failure; the warm-up is judged
// on coarse blocks at the cap's slice and the window is clean.
func TestSlowRouteWarmupDoesNotFail(t *testing.T) {
	byKey := runWarmup(t, warmupFile("slow", "4", "  warmup: 200ms\n  warmup_max: 3s\n  rounds: 1\n"))
	w := byKey["r1/flaky/slow/c4"]
	if w.Load == nil || !w.Valid() || w.HasFlag(journal.FlagInvalid) || w.HasFlag(journal.FlagNotSteady) {
		t.Fatalf("slow route: flags %v, reasons %v; want a counted, unflagged window", w.Flags, w.Reasons)
	}
	if w.Load.Warmup.Attempts < 8 || w.Load.Warmup.Errors != 0 {
		t.Errorf("slow route warm-up: %+v, want at least two answers per connection and no failure", w.Load.Warmup)
	}
}
