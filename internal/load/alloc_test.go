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
	allocs, successes := windowAllocations(t, Config{Connections: 8, Duration: time.Second})
	perRequest := float64(allocs) / float64(successes)
	if successes < 1000 || perRequest > 0.01 {
		t.Errorf("%d allocations for %d requests (%.3f per request), want none per request",
			allocs, successes, perRequest)
	}
}

// A pool of 1,000 request variants (a templated case's) is encoded before
// the window: cycling over it allocates nothing per request either. The
// window's own fixed cost (timers, events: a few dozen allocations) is
// allowed, so that a busy host, which lets fewer requests through, does not
// turn it into a per-request figure.
func TestRequestPoolAllocatesNothingPerRequest(t *testing.T) {
	pool := make([]Request, 1000)
	for i := range pool {
		pool[i] = Request{Method: "GET", Path: "/articles/bench-" + strconv.Itoa(i),
			Headers: map[string]string{"Authorization": "Token t" + strconv.Itoa(i)}}
	}
	allocs, successes := windowAllocations(t, Config{Connections: 8, Duration: time.Second, Requests: pool})
	const fixedCost = 200
	if successes < 1000 || allocs > uint64(fixedCost+successes/100) {
		t.Errorf("%d allocations for %d requests, want at most %d (the window's fixed cost) plus none per request",
			allocs, successes, fixedCost)
	}
}

// TLS adds only crypto/tls's own allocation per request: each record it
// reads allocates one 24-byte reader (Conn.readFromUntil's atLeastReader,
// which escapes through an interface), on each side — the server's
// crypto/tls is in this process too. The engine adds none.
func TestTLSClosedLoopAllocatesOnlyCryptoTLSReaders(t *testing.T) {
	ca, pem := throwaway(t)
	url := tlsServer(t, ca, nil, fixedResponder(okResponse))
	allocs, successes := urlAllocations(t, url, Config{Connections: 8, Duration: time.Second, CACertPEM: pem})
	const fixedCost = 200
	if successes < 1000 || allocs > uint64(fixedCost+2*successes+successes/100) {
		t.Errorf("%d allocations for %d requests, want at most %d (the window's fixed cost) plus 2 per request (one record read on each side)",
			allocs, successes, fixedCost)
	}
}

// windowAllocations runs cfg against a raw server and counts the
// allocations of the measured window.
func windowAllocations(t *testing.T, cfg Config) (allocs uint64, successes int64) {
	return urlAllocations(t, rawServer(t, fixedResponder(okResponse)), cfg)
}

// urlAllocations runs cfg against url and counts the allocations of the
// measured window.
func urlAllocations(t *testing.T, url string, cfg Config) (allocs uint64, successes int64) {
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
	return after.Mallocs - before.Mallocs, res.Successes
}
