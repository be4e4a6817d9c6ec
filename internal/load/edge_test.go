package load

import (
	"bufio"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
)

// slowResponder answers every request on c with resp after delay.
func slowResponder(resp []byte, delay time.Duration) func(c net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReaderSize(c, 4096)
		for {
			if err := skipRequestHead(r); err != nil {
				return
			}
			time.Sleep(delay)
			if _, err := c.Write(resp); err != nil {
				return
			}
		}
	}
}

// Half the connections reach a server that reads their request and never
// answers (trap T16). Those requests are still open when the drain ends:
// they are the window's unfinished failures, their age (at least the
// window and the drain) a lower bound in the error latency, and they
// push the failure share over the 1 % that marks a window invalid.
func TestStuckConnectionsAreUnfinished(t *testing.T) {
	var accepted atomic.Int64
	answer := slowResponder(okResponse, 5*time.Millisecond)
	url := rawServer(t, func(c net.Conn) {
		if accepted.Add(1)%2 == 0 {
			answer(c)
			return
		}
		r := bufio.NewReader(c)
		for skipRequestHead(r) == nil { // read, never answer
		}
	})
	const window = 500 * time.Millisecond
	res := runLoad(t, url, Config{Connections: 8, Duration: window})
	if got := res.Errors["unfinished"]; got != 4 {
		t.Fatalf("unfinished %d, want the 4 stuck connections' requests (errors %v)", got, res.Errors)
	}
	if res.Successes == 0 || res.Attempts != res.Successes+res.ErrorCount() {
		t.Errorf("attempts %d, successes %d, errors %v: attempts must include the unfinished", res.Attempts, res.Successes, res.Errors)
	}
	if share := res.FailureShare(); share <= 0.01 {
		t.Errorf("failure share %.4f with 4 stuck requests of %d; want over 1 %%", share, res.Attempts)
	}
	// Age at the drain's end: the whole window plus the one-second drain.
	if min := (window + maxDrain).Microseconds(); res.ErrorLatencyMicros.P50 < min*9/10 {
		t.Errorf("unfinished age p50 %d µs, want about the window and the drain (%d µs)", res.ErrorLatencyMicros.P50, min)
	}
	if h, err := hist.Decode(res.ErrorLatencyHist); err != nil || h.Count() != 4 {
		t.Errorf("error_latency_hist holds %v values (%v), want the 4 unfinished", h.Count(), err)
	}
	if res.Drain.Abandoned != 0 {
		t.Errorf("drain abandoned %d in a run that ended by itself", res.Drain.Abandoned)
	}
}

// An open loop far above what the server can answer (2 connections, 50 ms
// each: 40 req/s, asked for 400) leaves most of the schedule unsent; sent
// and unsent together are exactly the schedule.
func TestOverloadedOpenLoopCountsUnsent(t *testing.T) {
	url := rawServer(t, slowResponder(okResponse, 50*time.Millisecond))
	res := runLoad(t, url, Config{Connections: 2, Rate: 400, Duration: time.Second})
	if res.Unsent < 200 {
		t.Errorf("unsent %d of the 400 due with capacity for about 40; want most of them", res.Unsent)
	}
	sent := res.Warmup.Attempts + res.Attempts + res.Drain.Attempts
	if sent+res.Unsent != 400 {
		t.Errorf("sent %d + unsent %d = %d, want the schedule's 400", sent, res.Unsent, sent+res.Unsent)
	}
	if share := res.FailureShare(); share < 0.5 {
		t.Errorf("failure share %.3f; the unsent requests are failures", share)
	}
}

// Issue 31, item 1: in open loop the requests left unsent or unfinished
// by a server that stops answering enter the corrected histogram at the
// time they had waited, so the histogram holds every request due, and
// its p99 shows the stall (a second and more) instead of the fast answers
// before it.
func TestOpenLoopStallIsInTheCorrectedHistogram(t *testing.T) {
	var answered atomic.Int64
	url := rawServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		for skipRequestHead(r) == nil {
			if answered.Add(1) > 60 {
				continue // stalled: reads, never answers
			}
			if _, err := c.Write(okResponse); err != nil {
				return
			}
		}
	})
	res := runLoad(t, url, Config{Connections: 4, Rate: 200, Duration: time.Second})
	h, err := hist.Decode(res.LatencyHist)
	if err != nil {
		t.Fatal(err)
	}
	if res.Unsent == 0 || res.Errors["unfinished"] == 0 {
		t.Fatalf("unsent %d, unfinished %d; the stalled server should leave both", res.Unsent, res.Errors["unfinished"])
	}
	if want := res.Successes + res.Errors["unfinished"] + res.Unsent; h.Count() != want {
		t.Errorf("corrected histogram holds %d, want successes %d + unfinished %d + unsent %d = %d",
			h.Count(), res.Successes, res.Errors["unfinished"], res.Unsent, want)
	}
	if res.LatencyMicros.P99 < (500 * time.Millisecond).Microseconds() {
		t.Errorf("corrected p99 %d µs; want the stall in it (the requests waited up to the window and its drain)", res.LatencyMicros.P99)
	}
}

// A request due in the window and answered only in the drain (a server
// that holds its last answers 300 ms) is not in the window's counts, but
// its latency is in the corrected histogram: the tail keeps the stall.
func TestOpenLoopDrainAnswersAreInTheCorrectedHistogram(t *testing.T) {
	url := rawServer(t, slowResponder(okResponse, 300*time.Millisecond))
	res := runLoad(t, url, Config{Connections: 64, Rate: 100, Duration: time.Second})
	h, err := hist.Decode(res.LatencyHist)
	if err != nil {
		t.Fatal(err)
	}
	if res.Drain.Successes == 0 || res.Unsent != 0 {
		t.Fatalf("drain %+v, unsent %d; want answers in the drain and nothing unsent", res.Drain, res.Unsent)
	}
	if want := res.Successes + res.Drain.Successes + res.Errors["unfinished"]; h.Count() != want {
		t.Errorf("corrected histogram holds %d, want the window's %d successes, the drain's %d and %d unfinished",
			h.Count(), res.Successes, res.Drain.Successes, res.Errors["unfinished"])
	}
}

// With one connection at 20 ms a request and 100 req/s due, the open loop
// falls behind by half a second over the window; its corrected latency is
// recorded past the 200 ms timeout, not clamped there, while each request
// took about 20 ms from its actual send.
func TestCorrectedLatencyBeyondTheTimeoutIsRecorded(t *testing.T) {
	url := rawServer(t, slowResponder(okResponse, 20*time.Millisecond))
	timeout := 200 * time.Millisecond
	res := runLoad(t, url, Config{Connections: 1, Rate: 100, Duration: time.Second, Timeout: timeout})
	if res.Successes == 0 || res.Errors["timeout"] != 0 {
		t.Fatalf("%d successes, errors %v; want answers, no timeout", res.Successes, res.Errors)
	}
	if max := res.LatencyMicros.Max; max < 2*timeout.Microseconds() {
		t.Errorf("corrected max %d µs; want the backlog, well past the %d µs timeout", max, timeout.Microseconds())
	}
	if p50 := res.LatencyUncorrectedMicros.P50; p50 > timeout.Microseconds()/2 {
		t.Errorf("uncorrected p50 %d µs, want about 20 ms", p50)
	}
	if res.Unsent == 0 {
		t.Error("no unsent request, yet the schedule ran away from the server")
	}
}

// dueBefore counts exactly the schedule's entries before a time, for any
// worker and spacing.
func TestDueBeforeMatchesTheSchedule(t *testing.T) {
	for _, c := range []struct {
		workers int
		rate    float64
	}{{1, 1000}, {2, 400}, {3, 7}, {4, 123456}} {
		r := &run{t0: 1000, nsPerRequest: 1e9 / c.rate, workers: make([]*worker, c.workers)}
		for _, end := range []int64{1000, 1001, 1000 + int64(r.nsPerRequest), 1000 + 1e9, 1000 + 1e9 + 1, 1000 + 3_333_333} {
			for w := range c.workers {
				var naive int64
				for r.intendedAt(w, naive) < end {
					naive++
				}
				if got := r.dueBefore(w, end); got != naive {
					t.Errorf("%d workers at %g/s, worker %d, end t0+%d: dueBefore %d, want %d", c.workers, c.rate, w, end-1000, got, naive)
				}
			}
		}
	}
}
