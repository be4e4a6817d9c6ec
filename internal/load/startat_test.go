package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// StartAt holds the run's clock until the instant, after the connections
// are open: the window opens at it, not when Run was called.
func TestStartAt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	called := time.Now()
	at := called.Add(400 * time.Millisecond)
	res, err := Run(context.Background(), Config{URL: srv.URL, Connections: 1, Duration: 200 * time.Millisecond, Timeout: time.Second, StartAt: at})
	if err != nil {
		t.Fatal(err)
	}
	opened := time.Unix(0, res.MeasureStartUnixNano)
	if opened.Before(at) || opened.Sub(at) > 300*time.Millisecond || res.Successes == 0 {
		t.Fatalf("the window opened %s after the instant (%d successes); want at it", opened.Sub(at), res.Successes)
	}
	// Ready once the connection was open: after the call, before the
	// instant (a loopback dial takes far less than 400 ms).
	if ready := time.Unix(0, res.ReadyUnixNano); ready.Before(called) || !ready.Before(at) {
		t.Errorf("ready %s after the call, the instant %s after it; want in between", ready.Sub(called), at.Sub(called))
	}
}

// An instant already past when the run is ready: it starts at once, and
// ReadyUnixNano says how late against the instant.
func TestStartAtPassed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	at := time.Now().Add(-300 * time.Millisecond)
	res, err := Run(context.Background(), Config{URL: srv.URL, Connections: 1, Duration: 100 * time.Millisecond, Timeout: time.Second, StartAt: at})
	if err != nil {
		t.Fatal(err)
	}
	ready, opened := time.Unix(0, res.ReadyUnixNano), time.Unix(0, res.MeasureStartUnixNano)
	if late := ready.Sub(at); late < 300*time.Millisecond {
		t.Errorf("ready %s after an instant 300 ms past; want at least that", late)
	}
	if opened.Before(ready) {
		t.Errorf("the window opened %s before the run was ready", ready.Sub(opened))
	}
}

// Without an instant to start at, no readiness is reported.
func TestNoStartAtNoReady(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{URL: srv.URL, Connections: 1, Duration: 50 * time.Millisecond, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.ReadyUnixNano != 0 {
		t.Errorf("ReadyUnixNano %d without StartAt; want 0", res.ReadyUnixNano)
	}
}
