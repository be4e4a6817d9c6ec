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
	// The scheduler may let one probe run ahead of the hogs (a thread
	// that slept is owed some time); beside them for a second, the probe
	// must see the host slow. In CI beside other packages' tests one probe
	// 100 ms after the hogs started read 8.00 ms against a reference of
	// 8.49 ms taken on a host already busy.
	var busy []float64
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ms := p.Probe()
		busy = append(busy, ms)
		if ms >= (1+host.HostSlowShare)*p.ReferenceMs {
			t.Logf("reference %.2f ms, probes beside %d one-core hogs %.2f ms", p.ReferenceMs, hogs, busy)
			return
		}
	}
	t.Errorf("a host that gives the probe a fraction of a core for a second: probes of %.2f ms against a reference of %.2f ms, none flagged slow", busy, p.ReferenceMs)
}
