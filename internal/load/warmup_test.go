package load

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// rampingHandler answers after a pause that shrinks from from to to over
// ramp from its first request, as a JIT runtime speeds up while it
// compiles; then it stays at to. A sleep, not CPU, so the test depends
// less on a quiet machine.
func rampingHandler(ramp, from, to time.Duration) http.HandlerFunc {
	var once sync.Once
	var t0 time.Time
	return func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { t0 = time.Now() })
		left := max(0, 1-float64(time.Since(t0))/float64(ramp))
		time.Sleep(to + time.Duration(left*float64(from-to)))
		w.Write([]byte("ok"))
	}
}

// The adaptive warm-up waits for a server still speeding up: it ends
// steady after the ramp (or, on a host too noisy for the slices to
// agree, at the cap), never inside it, in whole slices of 250 ms with the
// last one announced. Whether the window then trends depends on the
// host as well; internal/run's test checks the flags.
func TestAdaptiveWarmupWaitsForARampingServer(t *testing.T) {
	const ramp = 2500 * time.Millisecond
	res := runLoad(t, httpServer(t, rampingHandler(ramp, 40*time.Millisecond, 4*time.Millisecond)),
		Config{Connections: 16, Warmup: time.Second, WarmupMax: 8 * time.Second, Duration: time.Second})
	if res.WarmupSeconds < 2.25 || res.WarmupEnd != "steady" && res.WarmupEnd != "cap" {
		t.Errorf("warm-up ended %q after %.2f s (slices %v), want it to wait for the %v ramp", res.WarmupEnd, res.WarmupSeconds, res.WarmupSlices, ramp)
	}
	if res.WarmupSliceSeconds != 0.25 || float64(len(res.WarmupSlices)+1)*res.WarmupSliceSeconds != res.WarmupSeconds {
		t.Errorf("%d slices of %.3f s for a warm-up of %.3f s; want slices of 250 ms, the last one announced", len(res.WarmupSlices), res.WarmupSliceSeconds, res.WarmupSeconds)
	}
	if res.Successes == 0 || res.Warmup.Successes < MinWarmupRequests {
		t.Errorf("%d successes in the window, %d in the warm-up", res.Successes, res.Warmup.Successes)
	}
}

// A fixed warm-up keeps today's behaviour: no slices, its length, "fixed".
func TestFixedWarmupHasNoSlices(t *testing.T) {
	res := runLoad(t, httpServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }),
		Config{Connections: 2, Warmup: 300 * time.Millisecond, Duration: 500 * time.Millisecond})
	if res.WarmupEnd != "fixed" || res.WarmupSeconds != 0.3 || len(res.WarmupSlices) != 0 || res.Halves[0]+res.Halves[1] != res.Successes {
		t.Errorf("fixed warm-up: ended %q after %.2f s with slices %v, halves %v of %d", res.WarmupEnd, res.WarmupSeconds, res.WarmupSlices, res.Halves, res.Successes)
	}
}

// A server that is still speeding up when the cap comes: the window
// starts at the cap, and the result says the warm-up was not steady. The
// ramp is steep at the cap (from 80 ms to 4 ms a request over 1.6 s: each
// slice near the cap answers twice as many as the one before), so that a
// busy host's jitter cannot pass it for steady (in CI, a ramp of 40 → 4 ms
// over 2.5 s gave slices of 86 97 123 133 118, judged steady).
func TestAdaptiveWarmupStopsAtItsCap(t *testing.T) {
	res := runLoad(t, httpServer(t, rampingHandler(1600*time.Millisecond, 80*time.Millisecond, 4*time.Millisecond)),
		Config{Connections: 16, Warmup: time.Second, WarmupMax: 1500 * time.Millisecond, Duration: 500 * time.Millisecond})
	if res.WarmupEnd != "cap" || res.WarmupSeconds != 1.5 || len(res.WarmupSlices) != 5 {
		t.Errorf("warm-up ended %q after %.2f s with slices %v, want the cap at 1.5 s (5 slices judged, the 6th announced)", res.WarmupEnd, res.WarmupSeconds, res.WarmupSlices)
	}
	if res.Successes == 0 || res.Warmup.Successes == 0 {
		t.Errorf("nothing measured: %d successes, %d in the warm-up", res.Successes, res.Warmup.Successes)
	}
}

// A route that takes 300 ms: slices of 100 ms see bursts of four or
// nothing, too few to resolve 10 %. The warm-up is judged on the slice
// before the cap's, on blocks of slices, and ends steady there without
// 300 requests it could not complete; nothing completed in the floor, and
// nothing failed.
func TestAdaptiveWarmupOfASlowRoute(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte("ok"))
	}
	res := runLoad(t, httpServer(t, slow), Config{Connections: 4, Warmup: 200 * time.Millisecond, WarmupMax: 3 * time.Second, Duration: time.Second})
	if res.WarmupEnd != "steady" || res.Warmup.Attempts < 8 || res.Warmup.Errors != 0 || res.WarmupSeconds != 3 {
		t.Errorf("slow route: warm-up ended %q after %.2f s, %d attempts, %d errors (slices %v); want steady at the cap's slice",
			res.WarmupEnd, res.WarmupSeconds, res.Warmup.Attempts, res.Warmup.Errors, res.WarmupSlices)
	}
	if res.Successes < 8 || res.ErrorCount() != 0 {
		t.Errorf("slow route window: %d successes, %d errors", res.Successes, res.ErrorCount())
	}
}

// The events announce the adaptive window's start ahead of it, and the
// result's boundaries match the announcement.
func TestAdaptiveWarmupAnnouncesTheWindow(t *testing.T) {
	var mu sync.Mutex
	var at, start int64
	res := runLoad(t, httpServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }),
		Config{Connections: 2, Warmup: 400 * time.Millisecond, WarmupMax: 4 * time.Second, Duration: 500 * time.Millisecond,
			Progress: func(e Event) {
				mu.Lock()
				defer mu.Unlock()
				switch e.Kind {
				case MeasureAt:
					at = e.UnixNano
				case MeasureStart:
					start = e.UnixNano
				}
			}})
	mu.Lock()
	defer mu.Unlock()
	if at == 0 || at != start || at != res.MeasureStartUnixNano {
		t.Errorf("measure_at %d, measure_start %d, result %d: want one instant", at, start, res.MeasureStartUnixNano)
	}
}
