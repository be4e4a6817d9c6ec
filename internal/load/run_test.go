package load

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
)

var okResponse = []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")

// Every request the server answered is accounted for exactly once: in the
// warm-up, the window (as a success or an unexpected status) or the drain;
// one in ten is a 503 and the split says so.
func TestCountingIsExactAndStatusesSplit(t *testing.T) {
	var served, unavailable atomic.Int64
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1)%10 == 0 {
			unavailable.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	})
	res := runLoad(t, url, Config{Connections: 8, Duration: time.Second, Warmup: 300 * time.Millisecond})
	if res.Errors["unfinished"] != 0 || res.Drain.Abandoned != 0 {
		t.Fatalf("%d unfinished, %d abandoned; the exact count needs none", res.Errors["unfinished"], res.Drain.Abandoned)
	}
	total := res.Warmup.Attempts + res.Attempts + res.Drain.Attempts
	if total != served.Load() {
		t.Errorf("server answered %d requests; stackbench accounts for %d (warm-up %d + window %d + drain %d)",
			served.Load(), total, res.Warmup.Attempts, res.Attempts, res.Drain.Attempts)
	}
	if got := res.Successes + res.Errors["status_503"]; got != res.Attempts {
		t.Errorf("window: %d successes + %d status_503 != %d attempts; errors %v", res.Successes, res.Errors["status_503"], res.Attempts, res.Errors)
	}
	failed := res.Warmup.Errors + res.Errors["status_503"] + res.Drain.Errors
	if failed != unavailable.Load() {
		t.Errorf("server sent %d 503s; stackbench counted %d", unavailable.Load(), failed)
	}
	share := float64(res.Errors["status_503"]) / float64(res.Attempts)
	if res.Attempts < 100 || share < 0.09 || share > 0.11 {
		t.Errorf("503 share %.3f of %d attempts, want 0.10", share, res.Attempts)
	}
	if want := float64(res.Successes) / res.DurationSeconds; res.ThroughputRPS != want {
		t.Errorf("throughput %v, want successes ÷ window = %v", res.ThroughputRPS, want)
	}
	var timeline int64
	for _, s := range res.Timeline {
		timeline += s.Successes + s.Errors
	}
	if timeline != res.Attempts {
		t.Errorf("timeline sums to %d, attempts %d", timeline, res.Attempts)
	}
	if h, err := hist.Decode(res.ErrorLatencyHist); err != nil {
		t.Error(err)
	} else if h.Count() != res.ErrorCount() {
		t.Errorf("error_latency_hist holds %d values, want the window's %d errors", h.Count(), res.ErrorCount())
	}
}

// generator_cpu_s covers the window only, not the warm-up before it: a busy
// second of warm-up and a short window give at most the window's CPU on
// every core; client_bound is set exactly when it reaches 85 % of that.
func TestGeneratorCPUCoversTheWindowOnly(t *testing.T) {
	url := rawServer(t, fixedResponder(okResponse))
	res := runLoad(t, url, Config{Connections: 8, Warmup: time.Second, Duration: 300 * time.Millisecond})
	capacity := float64(res.CoresAvailable) * res.DurationSeconds
	if res.GeneratorCPUSeconds <= 0 || res.GeneratorCPUSeconds > 1.1*capacity+0.02 {
		t.Errorf("generator CPU %.3f s over a %.1f s window on %d cores; want (0, %.2f]",
			res.GeneratorCPUSeconds, res.DurationSeconds, res.CoresAvailable, capacity)
	}
	if want := res.GeneratorCPUSeconds >= 0.85*capacity; res.ClientBound != want {
		t.Errorf("client_bound %v with %.3f s of CPU of %.3f available", res.ClientBound, res.GeneratorCPUSeconds, capacity)
	}
	// The wait is summed over the process's threads over the window: it
	// cannot exceed every thread waiting all the window (a figure in the
	// wrong unit, or taken over the warm-up too, would).
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	if most := float64(len(tasks)) * (res.DurationSeconds + 0.05); res.GeneratorWaitSeconds > most || res.Warmup.Attempts == 0 {
		t.Errorf("generator wait %.3f s (at most %.2f: %d threads over %.2f s), warm-up attempts %d",
			res.GeneratorWaitSeconds, most, len(tasks), res.DurationSeconds, res.Warmup.Attempts)
	}
}

// A server that resets every connection yields no throughput, only resets.
func TestResettingServerGivesZeroThroughput(t *testing.T) {
	url := rawServer(t, func(c net.Conn) {
		skipRequestHead(bufio.NewReader(c))
		c.(*net.TCPConn).SetLinger(0) // close with RST
	})
	res := runLoad(t, url, Config{Connections: 4, Duration: time.Second})
	if res.Successes != 0 || res.ThroughputRPS != 0 {
		t.Errorf("successes %d, throughput %v; want 0", res.Successes, res.ThroughputRPS)
	}
	if res.Errors["reset"] == 0 || res.Errors["reset"] != res.Attempts {
		t.Errorf("errors %v over %d attempts; want every attempt a reset", res.Errors, res.Attempts)
	}
	if res.Reconnects == 0 {
		t.Error("no reconnect counted, yet every connection was reset")
	}
}

// A server that answers after 3 s: latency with a long timeout, all
// timeouts with a 1 s one.
func TestSlowServerIsLatencyNotErrorUnderLongTimeout(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
			w.Write([]byte("late"))
		case <-r.Context().Done():
		}
	}
	t.Run("timeout 60s", func(t *testing.T) {
		t.Parallel()
		res := runLoad(t, httpServer(t, slow), Config{Connections: 4, Duration: 3500 * time.Millisecond, Timeout: time.Minute})
		if res.Successes != 4 || res.ErrorCount() != 4 {
			t.Errorf("successes %d, errors %v; want the 4 first answers and 4 unfinished", res.Successes, res.Errors)
		}
		if res.LatencyMicros.P50 < 3_000_000 {
			t.Errorf("p50 %d µs, want at least 3 s", res.LatencyMicros.P50)
		}
		// The second round was in flight when the window ended and is
		// answered only after the one-second drain: unfinished, failures
		// of the window (trap T16), not left in the drain.
		if d := res.Drain; res.Errors["unfinished"] != 4 || d.Attempts != 0 || res.Attempts != 8 {
			t.Errorf("drain %+v, window attempts %d, errors %v; want the 4 requests in flight unfinished in the window", d, res.Attempts, res.Errors)
		}
	})
	t.Run("timeout 1s", func(t *testing.T) {
		t.Parallel()
		res := runLoad(t, httpServer(t, slow), Config{Connections: 4, Duration: 3 * time.Second, Timeout: time.Second})
		if res.Successes != 0 || res.Errors["timeout"] == 0 || res.Errors["timeout"] != res.Attempts {
			t.Errorf("successes %d, errors %v over %d attempts; want every attempt a timeout", res.Successes, res.Errors, res.Attempts)
		}
		if p50 := res.ErrorLatencyMicros.P50; p50 < 1_000_000 || p50 > 1_500_000 {
			t.Errorf("time to timeout p50 %d µs, want about 1 s", p50)
		}
	})
}

// The open loop's schedule is exact whatever the host does: every request
// due in the window completes in it (an attempt), is still in flight at
// its end (the drain's) or was never sent (unsent), so they add up to the
// rate × the window to within a request or two at each boundary. What a
// busy host changes is when they go out, not how many were due: the
// delivered rate is held to the schedule only as far as the engine says
// it kept up (no late send, none unsent).
func TestOpenLoopHoldsTheRate(t *testing.T) {
	url := rawServer(t, fixedResponder(okResponse))
	res := runLoad(t, url, Config{Connections: 16, Rate: 2000, Duration: 2 * time.Second})
	due := 2000 * res.DurationSeconds
	accounted := float64(res.Attempts + res.Unsent + res.Drain.Attempts)
	t.Logf("due %.0f: %d attempts, %d unsent, %d in the drain, %d late sends; %.1f req/s delivered",
		due, res.Attempts, res.Unsent, res.Drain.Attempts, res.LateSends, float64(res.Successes)/res.DurationSeconds)
	if accounted < due-4 || accounted > due+4 {
		t.Errorf("open loop at 2000 req/s over %.3f s: %.0f requests due, %.0f accounted for (attempts + unsent + drain; errors %v)",
			res.DurationSeconds, due, accounted, res.Errors)
	}
	if res.LateSends == 0 && res.Unsent == 0 && float64(res.Successes) < due-float64(res.Drain.Attempts)-4 {
		t.Errorf("the engine kept up (no late send, none unsent) and delivered %d of %.0f due", res.Successes, due)
	}
	if res.Mode != "open" || res.LatencyUncorrectedMicros == nil || res.LatencyUncorrectedHist == "" {
		t.Errorf("open-loop result lacks its mode or uncorrected latency: %q %v", res.Mode, res.LatencyUncorrectedMicros)
	}
	if h, err := hist.Decode(res.LatencyUncorrectedHist); err != nil {
		t.Error(err)
	} else if h.Count() != res.Successes {
		t.Errorf("latency_uncorrected_hist holds %d values, want the %d successes", h.Count(), res.Successes)
	}
}

// late_sends counts sends that found no free connection when due. With a
// fast server and connections to spare (64 per worker, a stall would have
// to last over 100 ms to use them up), none is late, even though due times
// often pass while a batch of responses is being handled; and none is
// unsent, even when the generator wakes a moment after the window's end.
func TestOpenLoopWithFreeConnectionsSendsNothingLate(t *testing.T) {
	url := rawServer(t, fixedResponder(okResponse))
	res := runLoad(t, url, Config{Connections: 128, Rate: 1000, Duration: 2 * time.Second})
	if res.Successes < 1900 || res.LateSends != 0 || res.Unsent != 0 {
		t.Errorf("%d successes, %d late sends, %d unsent with 128 connections at 1000 req/s; want none late or unsent",
			res.Successes, res.LateSends, res.Unsent)
	}
}

// A one-second stall shows in the corrected p99 (measured from the
// schedule) and not in the uncorrected one: the requests that waited for
// a connection were sent late, not slowly answered.
func TestStallShowsInCorrectedLatencyOnly(t *testing.T) {
	var gate sync.RWMutex
	var first sync.Once
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		first.Do(func() {
			go func() {
				time.Sleep(500 * time.Millisecond)
				gate.Lock()
				time.Sleep(time.Second)
				gate.Unlock()
			}()
		})
		gate.RLock()
		gate.RUnlock()
		w.Write([]byte("ok"))
	})
	res := runLoad(t, url, Config{Connections: 8, Rate: 1000, Duration: 3 * time.Second})
	if res.LatencyUncorrectedMicros == nil {
		t.Fatal("no uncorrected latency in open loop")
	}
	corrected, uncorrected := res.LatencyMicros.P99, res.LatencyUncorrectedMicros.P99
	if corrected < 500_000 {
		t.Errorf("corrected p99 %d µs, want the stall (≥ 500 ms)", corrected)
	}
	if uncorrected > 200_000 {
		t.Errorf("uncorrected p99 %d µs, want well under the stall (≤ 200 ms)", uncorrected)
	}
	if res.LateSends == 0 {
		t.Error("no late send counted during a one-second stall")
	}
}

func TestPoolRotatesInOrder(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-N"))
		mu.Unlock()
	})
	pool, err := ReadRequests(strings.NewReader(`{"method":"GET","path":"/a","headers":{"X-N":"1"}}

{"path":"/b","headers":{"X-N":"2"}}
{"method":"POST","path":"/c","body":"{}","headers":{"X-N":"3"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	runLoad(t, url, Config{Connections: 1, Duration: 300 * time.Millisecond, Requests: pool})
	mu.Lock()
	defer mu.Unlock()
	want := []string{"GET /a 1", "GET /b 2", "POST /c 3"}
	if len(paths) < 6 {
		t.Fatalf("only %d requests served", len(paths))
	}
	for i, p := range paths {
		if p != want[i%3] {
			t.Fatalf("request %d was %q, want %q (sequence %q)", i, p, want[i%3], paths[:min(len(paths), 9)])
		}
	}
}

func TestRemoteTargetRefused(t *testing.T) {
	for _, url := range []string{"http://192.0.2.10:8080/", "http://[2001:db8::1]/"} {
		_, err := Run(context.Background(), Config{URL: url, Duration: time.Second})
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: err %v, want a ConfigError about loopback", url, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []Config{
		{URL: "::nonsense"},
		{URL: "https://127.0.0.1/", CACertPEM: []byte("not a certificate")},
		{URL: "ftp://127.0.0.1/"},
		{URL: "http://127.0.0.1:99999/"},
		{URL: "http://127.0.0.1/", Rate: -5},
		{URL: "http://127.0.0.1/", Method: "GE T"},
		{URL: "http://127.0.0.1/", Headers: []Header{{Name: "Bad Name", Value: "x"}}},
		{URL: "http://127.0.0.1/", Expect: []int{42}},
	}
	for _, cfg := range cases {
		_, err := Run(context.Background(), cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%+v: err %v, want a ConfigError", cfg, err)
		}
	}
}

func TestReadRequestsNamesTheBadLine(t *testing.T) {
	_, err := ReadRequests(strings.NewReader("{\"path\":\"/a\"}\n{\"path\":\"/b\",\"bogus\":1}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err %v, want one naming line 2", err)
	}
	_, err = ReadRequests(strings.NewReader("{\"path\":\"/a\"}\n\n{\"path\":\"no-slash\"}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("err %v, want one naming line 3", err)
	}
}

func TestRefusedConnectionsAreCounted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"
	ln.Close() // nothing listens there now
	res := runLoad(t, url, Config{Connections: 2, Duration: 300 * time.Millisecond})
	if res.Successes != 0 || res.Errors["refused"] == 0 || res.Errors["refused"] != res.Attempts {
		t.Errorf("errors %v over %d attempts; want every attempt refused", res.Errors, res.Attempts)
	}
}

func TestConnectionCloseIsReconnected(t *testing.T) {
	url := rawServer(t, fixedResponder([]byte("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")))
	res := runLoad(t, url, Config{Connections: 2, Duration: 500 * time.Millisecond})
	if res.Successes == 0 || res.ErrorCount() != 0 {
		t.Fatalf("successes %d errors %v", res.Successes, res.Errors)
	}
	if res.Reconnects < res.Successes-2 {
		t.Errorf("%d reconnects for %d successes on closing connections", res.Reconnects, res.Successes)
	}
}

// reconnects counts connections reopened, not attempts to reopen: a server
// that answers once on each connection and then stops listening gets
// refused attempts, and no reconnect.
func TestReconnectsCountOnlyReopenedConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn
		for len(conns) < 2 {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
		ln.Close() // nothing listens any more: every reconnect is refused
		for _, c := range conns {
			skipRequestHead(bufio.NewReader(c))
			c.Write([]byte("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"))
			c.Close()
		}
	}()
	res := runLoad(t, "http://"+ln.Addr().String()+"/", Config{Connections: 2, Duration: 500 * time.Millisecond})
	ln.Close()
	<-done
	if res.Successes != 2 || res.Errors["refused"] == 0 || res.Reconnects != 0 {
		t.Errorf("%d successes, errors %v, %d reconnects; want 2 successes, refused attempts, no reconnect",
			res.Successes, res.Errors, res.Reconnects)
	}
}

func TestEventsInOrder(t *testing.T) {
	url := rawServer(t, fixedResponder(okResponse))
	var mu sync.Mutex
	var kinds []EventKind
	var tickSum int64
	res := runLoad(t, url, Config{Connections: 2, Duration: 2 * time.Second, Warmup: 200 * time.Millisecond,
		Progress: func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			kinds = append(kinds, e.Kind)
			tickSum += e.Successes
		}})
	mu.Lock()
	defer mu.Unlock()
	want := []EventKind{WarmupStart, MeasureAt, MeasureStart, Tick, Tick, MeasureEnd}
	if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(want), ",") {
		t.Errorf("events %v, want %v", kinds, want)
	}
	if tickSum < res.Successes*9/10 || tickSum > res.Successes {
		t.Errorf("ticks sum to %d successes, the result says %d", tickSum, res.Successes)
	}
}

func kindStrings(ks []EventKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

func TestResultJSONRoundTrips(t *testing.T) {
	url := rawServer(t, fixedResponder(okResponse))
	res := runLoad(t, url, Config{Connections: 2, Rate: 500, Duration: time.Second, Warmup: 100 * time.Millisecond})
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "url", "duration_s", "timeout_s", "connections", "rate", "attempts",
		"successes", "throughput_rps", "errors", "latency_us", "latency_uncorrected_us", "generator_cpu_s", "client_bound",
		"warmup", "timeline", "latency_hist", "error_latency_hist", "reconnects", "late_sends", "cores_available", "unsent"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON lacks key %q", k)
		}
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, res) {
		t.Errorf("round trip changed the result:\n got %+v\nwant %+v", back, *res)
	}
	// In open loop the corrected histogram holds every request due in the
	// window: the answers in it, and at most the drain's answers, the
	// requests still unanswered at the end and those never sent besides.
	h, err := hist.Decode(back.LatencyHist)
	if low := res.Successes + res.Unsent + res.Errors["unfinished"]; err != nil || h.Count() < low || h.Count() > low+res.Drain.Successes {
		t.Errorf("latency_hist holds %v values (%v), want %d (successes %d, unsent %d, unfinished %d) and up to the drain's %d answers", h.Count(), err, low, res.Successes, res.Unsent, res.Errors["unfinished"], res.Drain.Successes)
	}
}

// Bodies larger than the read buffer, chunked encoding (net/http chunks a
// body written without a length) and HEAD responses parse on real sockets.
func TestLargeChunkedAndHeadResponses(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 4; i++ {
			w.Write([]byte(big[:len(big)/4]))
			w.(http.Flusher).Flush()
		}
	})
	for _, method := range []string{"GET", "HEAD"} {
		res := runLoad(t, url, Config{Method: method, Connections: 2, Duration: 500 * time.Millisecond})
		if res.Successes < 10 || res.ErrorCount() != 0 {
			t.Errorf("%s: %d successes, errors %v", method, res.Successes, res.Errors)
		}
	}
}

func TestIPv6Loopback(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatalf("no IPv6 loopback here: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
	go srv.Serve(ln)
	defer srv.Close()
	res := runLoad(t, "http://"+ln.Addr().String()+"/", Config{Connections: 2, Duration: 300 * time.Millisecond})
	if res.Successes == 0 || res.ErrorCount() != 0 {
		t.Errorf("%d successes, errors %v", res.Successes, res.Errors)
	}
}
