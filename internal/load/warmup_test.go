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

// The adaptive warm-up waits for a server still speeding up, and its
// window then shows no trend; a fixed warm-up of the floor measures the
// ramp, and the window's halves say so. On a shared host a stall can put
// a trend into any one window, so the steady case gets three tries.
func TestAdaptiveWarmupWaitsForARampingServer(t *testing.T) {
	// Slices of 250 ms; the pause shrinks by a quarter or more a slice at
	// the ramp's end, several times what whole requests per connection and
	// a busy host's late wake-ups blur.
	const ramp = 2500 * time.Millisecond
	handler := func() http.HandlerFunc { return rampingHandler(ramp, 40*time.Millisecond, 4*time.Millisecond) }
	cfg := Config{Connections: 16, Warmup: time.Second, WarmupMax: 8 * time.Second, Duration: time.Second}
	var res *Result
	for try := 0; try < 3; try++ {
		res = runLoad(t, httpServer(t, handler()), cfg)
		if _, clear := Trend(res.Halves[0], res.Halves[1], 16); !clear {
			break
		}
		t.Logf("try %d: the window trends (halves %v); again", try+1, res.Halves)
	}
	if res.WarmupEnd != "steady" || res.WarmupSeconds < 2.25 {
		t.Errorf("warm-up ended %q after %.2f s (slices %v), want steady after the %v ramp", res.WarmupEnd, res.WarmupSeconds, res.WarmupSlices, ramp)
	}
	if res.WarmupSliceSeconds != 0.25 || float64(len(res.WarmupSlices)+1)*res.WarmupSliceSeconds != res.WarmupSeconds {
		t.Errorf("%d slices of %.3f s for a warm-up of %.3f s; want slices of 250 ms, the last one announced", len(res.WarmupSlices), res.WarmupSliceSeconds, res.WarmupSeconds)
	}
	if change, clear := Trend(res.Halves[0], res.Halves[1], 16); clear {
		t.Errorf("the window after a steady warm-up trends %+.1f %% (halves %v)", 100*change, res.Halves)
	}
	var n int64
	for _, c := range res.WarmupSlices[len(res.WarmupSlices)-3:] {
		n += c
	}
	if sliceRate := float64(n) / (3 * res.WarmupSliceSeconds); res.ThroughputRPS < 0.85*sliceRate {
		t.Errorf("window %.0f req/s, the warm-up's last slices %.0f req/s: the window should be at least as fast", res.ThroughputRPS, sliceRate)
	}

	fixed := runLoad(t, httpServer(t, handler()), Config{Connections: 16, Warmup: time.Second, Duration: time.Second})
	if fixed.WarmupEnd != "fixed" || fixed.WarmupSeconds != 1 || len(fixed.WarmupSlices) != 0 {
		t.Errorf("fixed warm-up: ended %q after %.2f s with slices %v", fixed.WarmupEnd, fixed.WarmupSeconds, fixed.WarmupSlices)
	}
	if change, clear := Trend(fixed.Halves[0], fixed.Halves[1], 16); !clear || change < 0.2 {
		t.Errorf("a window inside the ramp trends %+.1f %% (halves %v), want a clear rise", 100*change, fixed.Halves)
	}
}

// A server that is still speeding up when the cap comes: the window
// starts at the cap, and the result says the warm-up was not steady.
func TestAdaptiveWarmupStopsAtItsCap(t *testing.T) {
	res := runLoad(t, httpServer(t, rampingHandler(time.Second, 20*time.Millisecond, 2*time.Millisecond)),
		Config{Connections: 16, Warmup: 400 * time.Millisecond, WarmupMax: 800 * time.Millisecond, Duration: 500 * time.Millisecond})
	if res.WarmupEnd != "cap" || res.WarmupSeconds != 0.8 || len(res.WarmupSlices) != 7 {
		t.Errorf("warm-up ended %q after %.2f s with slices %v, want the cap at 0.8 s (7 slices judged, the 8th announced)", res.WarmupEnd, res.WarmupSeconds, res.WarmupSlices)
	}
	if res.Successes == 0 || res.Warmup.Successes == 0 {
		t.Errorf("nothing measured: %d successes, %d in the warm-up", res.Successes, res.Warmup.Successes)
	}
}

// A route that takes 300 ms: slices of 100 ms see bursts of four or
// nothing. The warm-up ends once every connection has had two answers,
// without waiting for 300 requests it cannot complete before the cap,
// and nothing failed.
func TestAdaptiveWarmupOfASlowRoute(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte("ok"))
	}
	res := runLoad(t, httpServer(t, slow), Config{Connections: 4, Warmup: 200 * time.Millisecond, WarmupMax: 3 * time.Second, Duration: time.Second})
	if res.WarmupEnd != "steady" || res.Warmup.Attempts < 8 || res.Warmup.Errors != 0 || res.WarmupSeconds > 1.5 {
		t.Errorf("slow route: warm-up ended %q after %.2f s, %d attempts, %d errors (slices %v); want steady after two answers per connection",
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
