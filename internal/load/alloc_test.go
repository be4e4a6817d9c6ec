//go:build !race

// The race detector allocates on its own, so this test runs without it.

package load

import (
	"runtime"
	"testing"
	"time"
)

// The closed loop's hot path allocates nothing per request. The server is
// in this process too and allocates nothing per request either.
func TestClosedLoopAllocatesNothingPerRequest(t *testing.T) {
	url := rawServer(t, fixedResponder(okResponse))
	var before, after runtime.MemStats
	res := runLoad(t, url, Config{Connections: 8, Duration: time.Second, Progress: func(e Event) {
		// Counted over the window only: encoding the histograms at the end
		// allocates per distinct latency, not per request.
		switch e.Kind {
		case MeasureStart:
			runtime.ReadMemStats(&before)
		case MeasureEnd:
			runtime.ReadMemStats(&after)
		}
	}})
	perRequest := float64(after.Mallocs-before.Mallocs) / float64(res.Successes)
	if res.Successes < 1000 || perRequest > 0.01 {
		t.Errorf("%d allocations for %d requests (%.3f per request), want none per request",
			after.Mallocs-before.Mallocs, res.Successes, perRequest)
	}
}
