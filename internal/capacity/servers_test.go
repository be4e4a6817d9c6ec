package capacity

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

// These tests search real servers on 127.0.0.1 through the load engine.
// The threshold tests offer a few hundred requests a second to a server
// that answers by the offered rate, so they wait far more than they
// compute: they run in parallel with each other. TestKnownCapacityIsFound
// runs alone: its server's capacity is its sleeping slots', which other
// tests' timers and goroutines beside it cut (it found 73–79 % of its 400
// req/s beside the two others, 98–99 % alone).
// The servers run in the test's own process, so the generator's CPU wait
// includes theirs: starvation is not judged (IgnoreStarvation). The host
// they run on is a shared 2-core machine whose stalls of tens of
// milliseconds fail probes the server would pass (a stall at a window's
// end looks like a queue): the threshold tests believe a failure only
// when it repeats twice (Retries 2).

// realSearch searches url with cfg through LoadProber; before each probe,
// offer (when set) tells the server the probe's rate.
func realSearch(t *testing.T, url string, cfg Config, offer func(rateRPS float64)) *Report {
	t.Helper()
	cfg.IgnoreStarvation = true
	if cfg.Budget == 0 {
		cfg.Budget = time.Minute
	}
	cfg.OnProbe = func(p Probe) {
		t.Logf("probe %2d %-8s %7.1f req/s: served %7.1f, p50 %s p99 %s, errors %s, pass %v %q", p.Index, p.Phase, p.RateRPS,
			p.ThroughputRPS, fmtMicros(p.LatencyMicros.P50), fmtMicros(p.LatencyMicros.P99), pct(p.ErrorShare), p.Pass, p.Reasons)
	}
	var prober Prober = LoadProber{Base: load.Config{URL: url, Connections: 256, Timeout: 5 * time.Second}}
	if offer != nil {
		prober = offeringProber{prober, offer}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := Search(ctx, cfg, prober)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	t.Logf("%s: capacity %.1f req/s, bracket %.1f–%.1f, %d probes in %v", rep.Status, rep.CapacityRPS,
		rep.LastPassRPS, rep.FirstFailRPS, len(rep.Probes), time.Since(start).Round(time.Millisecond))
	return rep
}

// offeringProber tells a threshold server each probe's rate before it.
type offeringProber struct {
	Prober
	offer func(rateRPS float64)
}

func (p offeringProber) Open(ctx context.Context, rate float64, warmup, window time.Duration) (*load.Result, error) {
	p.offer(rate)
	return p.Prober.Open(ctx, rate, warmup, window)
}

// A server of known capacity: 20 slots, each held 50 ms per request, so
// at most 400 req/s whatever the load (long holds, so that the shared
// host's late timer wake-ups cost the slots little). At a generous SLO
// (p99 ≤ 500 ms, ten holds: the queue, not the host's stalls, must stop
// the climb) the search finds 70–102 % of that from a closed-loop
// estimate, and the p99 it reports at that rate is within the SLO.
func TestKnownCapacityIsFound(t *testing.T) {
	const slots, hold = 20, 50 * time.Millisecond
	trueMax := float64(slots) / hold.Seconds()
	sem := make(chan struct{}, slots)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sem <- struct{}{}
		time.Sleep(hold)
		<-sem
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	slo, _ := ParseSLO("p99=500ms")
	rep := realSearch(t, srv.URL, Config{SLO: slo, Probe: 700 * time.Millisecond, Warmup: 300 * time.Millisecond}, nil)
	if rep.Status != StatusConfirmed || rep.CapacityRPS < 0.7*trueMax || rep.CapacityRPS > 1.02*trueMax {
		t.Fatalf("status %s, capacity %.1f req/s; want confirmed within 70–102 %% of %.0f", rep.Status, rep.CapacityRPS, trueMax)
	}
	if a := rep.AtCapacity; a == nil || a.LatencyMicros.P99 > slo.LatencyMicros || a.LatencyMicros.P99 < hold.Microseconds() {
		t.Errorf("at capacity %+v; want a p99 between the 50 ms hold and the SLO", a)
	}
	t.Logf("found %.1f req/s = %.1f %% of the true maximum %.0f", rep.CapacityRPS, 100*rep.CapacityRPS/trueMax, trueMax)
}

// thresholdServer answers in 1 ms while the probe's offered rate is at
// most limitRPS, and calls over beyond it. The prober tells it the rate
// of each probe before the probe starts (offer). It used to measure the
// arrival rate itself, which a busy host fools both ways: counted from the
// reset, a generator that starts late is let through above the limit
// (514.5 req/s confirmed against 500 in a CI run); counted from the first
// arrival, a generator whose first sends a stall delayed catches up in a
// burst that reads as over the limit (every probe at 580–613 req/s failed
// against a 600 limit on a host at load 9, 2026-12-03). What these tests
// check is where the search stops given what the load engine measures,
// not a server's rate meter.
func thresholdServer(t *testing.T, limitRPS float64, over func(w http.ResponseWriter)) (url string, offer func(rateRPS float64)) {
	var offered atomic.Uint64 // math.Float64bits of the probe's rate
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if math.Float64frombits(offered.Load()) > limitRPS {
			over(w)
			return
		}
		time.Sleep(time.Millisecond)
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func(rate float64) { offered.Store(math.Float64bits(rate)) }
}

// thresholdProbe is the probes for the threshold servers. The SLOs below
// are wide because this shared 2-core host stalls for tens of
// milliseconds at times; what they test is where the search stops. So is
// the shortfall (10 %, against the default 1 %): the server shares its
// process with the generator, and on a host starved by the packages
// beside it its 1 ms answers took 30 ms, the requests still in flight at
// a probe's end counting as a shortfall of 1.6 % at 350 req/s offered
// (.ci/run, 2026-12-04: capacity 344.5 against a limit of 500). Above
// the limit the servers fail by their errors or their 400 ms answers,
// which no shortfall rule is needed to see.
var thresholdProbe = Config{Probe: 700 * time.Millisecond, Warmup: 300 * time.Millisecond, StartRPS: 700, Retries: 2, MaxShortfall: 0.1}

// Latency jumps from 1 ms to 400 ms above 600 req/s: with a p99 ≤ 200 ms
// SLO the search finds 600 within its resolution (allowing, below, one
// more resolution step for a confirmation that the host's noise failed).
func TestLatencyJumpIsFoundWithinTheResolution(t *testing.T) {
	t.Parallel()
	const jump = 600.0
	url, offer := thresholdServer(t, jump, func(w http.ResponseWriter) {
		time.Sleep(400 * time.Millisecond)
		w.Write([]byte("slow"))
	})
	cfg := thresholdProbe
	cfg.SLO, _ = ParseSLO("p99=200ms")
	rep := realSearch(t, url, cfg, offer)
	res := rep.Resolution
	if rep.Status != StatusConfirmed || rep.CapacityRPS < jump*(1-2*res) || rep.CapacityRPS > jump*(1+res) {
		t.Fatalf("status %s, capacity %.1f req/s; want confirmed within the resolution of %.0f", rep.Status, rep.CapacityRPS, jump)
	}
	if a := rep.AtCapacity; a == nil || a.LatencyMicros.P99 > 200_000 {
		t.Errorf("at capacity %+v; want p99 within the SLO", a)
	}
}

// Above 500 req/s the server answers 503: errors, not latency, stop the
// climb, and the capacity is 500 within the resolution.
func TestErrorsBeyondARateStopTheClimb(t *testing.T) {
	t.Parallel()
	const limit = 500.0
	url, offer := thresholdServer(t, limit, func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	cfg := thresholdProbe
	cfg.SLO, _ = ParseSLO("p99=500ms")
	rep := realSearch(t, url, cfg, offer)
	res := rep.Resolution
	if rep.Status != StatusConfirmed || rep.CapacityRPS < limit*(1-2*res) || rep.CapacityRPS > limit*(1+res) {
		t.Fatalf("status %s, capacity %.1f req/s; want confirmed within the resolution of %.0f", rep.Status, rep.CapacityRPS, limit)
	}
	byErrors := false
	for _, p := range rep.Probes {
		if !p.Pass && len(p.Reasons) > 0 && strings.HasPrefix(p.Reasons[len(p.Reasons)-1], "errors") {
			byErrors = true
		}
	}
	if !byErrors {
		t.Error("no probe failed on its errors")
	}
	if a := rep.AtCapacity; a == nil || a.ErrorShare > rep.MaxErrorShare {
		t.Errorf("at capacity %+v; want errors within %s", a, pct(rep.MaxErrorShare))
	}
}
