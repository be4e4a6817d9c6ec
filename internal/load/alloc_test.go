//go:build !race

// The race detector allocates on its own, so this test runs without it.

package load

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

// The closed loop's hot path allocates nothing per request. The server is
// in this process too and allocates nothing per request either.
func TestClosedLoopAllocatesNothingPerRequest(t *testing.T) {
	allocationsPerRequest(t, Config{Connections: 8, Duration: time.Second})
}

// A pool of 1,000 request variants (a templated case's) is encoded before
// the window: cycling over it allocates nothing per request either.
func TestRequestPoolAllocatesNothingPerRequest(t *testing.T) {
	pool := make([]Request, 1000)
	for i := range pool {
		pool[i] = Request{Method: "GET", Path: "/articles/bench-" + strconv.Itoa(i),
			Headers: map[string]string{"Authorization": "Token t" + strconv.Itoa(i)}}
	}
	allocationsPerRequest(t, Config{Connections: 8, Duration: time.Second, Requests: pool})
}

func allocationsPerRequest(t *testing.T, cfg Config) {
	url := rawServer(t, fixedResponder(okResponse))
	var before, after runtime.MemStats
	cfg.Progress = func(e Event) {
		// Counted over the window only: encoding the histograms at the end
		// allocates per distinct latency, not per request.
		switch e.Kind {
		case MeasureStart:
			runtime.ReadMemStats(&before)
		case MeasureEnd:
			runtime.ReadMemStats(&after)
		}
	}
	res := runLoad(t, url, cfg)
	perRequest := float64(after.Mallocs-before.Mallocs) / float64(res.Successes)
	if res.Successes < 1000 || perRequest > 0.01 {
		t.Errorf("%d allocations for %d requests (%.3f per request), want none per request",
			after.Mallocs-before.Mallocs, res.Successes, perRequest)
	}
}
