package load

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestStoppedInsideTheWindowKeepsWhatWasMeasured cancels a 30 s window
// after about a second: the result comes back with a StoppedError, its
// window cut where the run stopped, and every figure over that span.
func TestStoppedInsideTheWindowKeepsWhatWasMeasured(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() {
		<-started
		time.Sleep(time.Second)
		cancel()
	}()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 4, Duration: 30 * time.Second, Warmup: 200 * time.Millisecond,
		Progress: func(e Event) {
			if e.Kind == MeasureStart {
				close(started)
			}
		}})
	var stopped *StoppedError
	if !errors.As(err, &stopped) || !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("err = %v, result %v; want a StoppedError with the result", err, res != nil)
	}
	if !res.Interrupted || res.DurationSeconds < 0.5 || res.DurationSeconds > 5 {
		t.Fatalf("interrupted %v after %.2f s of a 30 s window", res.Interrupted, res.DurationSeconds)
	}
	if res.Successes == 0 || res.ThroughputRPS != float64(res.Successes)/res.DurationSeconds {
		t.Errorf("throughput %.1f for %d successes in %.2f s", res.ThroughputRPS, res.Successes, res.DurationSeconds)
	}
	if len(res.Timeline) > int(res.DurationSeconds)+1 {
		t.Errorf("timeline of %d seconds for a %.2f s window", len(res.Timeline), res.DurationSeconds)
	}
	if res.GeneratorCPUSeconds <= 0 || res.MeasureEndUnixNano <= res.MeasureStartUnixNano {
		t.Errorf("generator CPU %.3f s, window %d..%d", res.GeneratorCPUSeconds, res.MeasureStartUnixNano, res.MeasureEndUnixNano)
	}
	// Every answered request the generator counted was served; the ones
	// the stop abandoned in flight (in Drain.Attempts) may never have
	// reached the handler, so they are left out of the bound.
	if got := res.Successes + res.Warmup.Attempts + res.Drain.Attempts - res.Drain.Abandoned; got > served.Load() {
		t.Errorf("counted %d answered requests (%d abandoned by the stop left out), the server served %d", got, res.Drain.Abandoned, served.Load())
	}
}

// TestStoppedInTheWarmupMeasuredNothing is an error without a result.
func TestStoppedInTheWarmupMeasuredNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Connections: 2, Duration: 5 * time.Second, Warmup: 10 * time.Second})
	if res != nil || err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("res %v err %v", res != nil, err)
	}
}
