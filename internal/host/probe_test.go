package host_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
)

// TestProberSeesAHostThatGivesItLessCPU: with three one-core hogs per CPU
// the probe's thread gets about a quarter of a core, and its fixed work
// takes well over HostSlowShare longer than at calibration, as on a host
// that another VM or a throttled clock slows down.
func TestProberSeesAHostThatGivesItLessCPU(t *testing.T) {
	p := host.NewProber()
	if p.ReferenceMs <= 0 || p.ReferenceMs > 50 {
		t.Fatalf("reference %v ms", p.ReferenceMs)
	}
	hogs := 3 * runtime.NumCPU()
	for range hogs {
		startHog(t)
	}
	time.Sleep(100 * time.Millisecond)
	busy := p.Probe()
	t.Logf("reference %.2f ms, probe beside %d one-core hogs %.2f ms", p.ReferenceMs, hogs, busy)
	if busy < (1+host.HostSlowShare)*p.ReferenceMs {
		t.Errorf("a host that gives the probe a fraction of a core: %.2f ms against %.2f ms, not flagged slow", busy, p.ReferenceMs)
	}
}
