package analysis

import (
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
)

// The foreign CPU the windows saw is summarised whether or not the gate
// judged it: over closed-loop and latency windows alike, failed windows
// (no sampler) left out, with the medians of its two readings and the
// windows kept contended.
func TestForeignCPUSummary(t *testing.T) {
	w := func(foreign, proc, tick float64, flags ...journal.Flag) journal.Window {
		return journal.Window{WallSeconds: 1, ForeignCores: foreign, ForeignProcessCores: proc, ForeignTickCores: tick, Flags: flags}
	}
	closed := []journal.Window{w(0.10, 0.10, 0), w(0.12, 0.12, 0.02), {Error: "the stack did not start"}}
	latency := []journal.Window{w(0.11, 0.11, 0.05), w(0.30, 0.20, 0.30, journal.FlagContended), w(0.09, 0.09, 0)}
	f := foreignCPU(true, closed, latency)
	if f == nil || f.Windows != 5 || f.MedianCores != 0.11 || f.MaxCores != 0.30 || f.Contended != 1 || !f.GateOff {
		t.Fatalf("summary %+v; want 5 windows, median 0.11, max 0.30, 1 contended, gate off", f)
	}
	if f.ProcessMedianCores != 0.11 || f.TickMedianCores != 0.02 || f.P90Cores < 0.12 || f.P90Cores > 0.30 {
		t.Errorf("readings %+v; want process median 0.11, ticks 0.02, p90 between 0.12 and 0.30", f)
	}
	// A journal from before the two readings: the gate's figure alone.
	old := foreignCPU(false, []journal.Window{{WallSeconds: 1, ForeignCores: 0.2}})
	if old == nil || old.MedianCores != 0.2 || old.ProcessMedianCores != 0 || old.GateOff {
		t.Errorf("old journal: %+v", old)
	}
	if foreignCPU(false, []journal.Window{{Error: "failed"}}) != nil {
		t.Error("no sampled window, yet a summary")
	}
}
