package load

import (
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var storefront = []MixRoute{{Name: "user", Weight: 60}, {Name: "list", Weight: 30}, {Name: "create-order", Weight: 10}}

// storefrontPool is a pool for storefront: two users, one list, one order.
func storefrontPool() []Request {
	return []Request{
		{Method: "GET", Path: "/users/1", Route: "user"},
		{Method: "GET", Path: "/list", Route: "list"},
		{Method: "POST", Path: "/orders", Body: `{"sku":"A"}`, Route: "create-order", Expect: []int{201}},
		{Method: "GET", Path: "/users/2", Route: "user"},
	}
}

// Over 10,000 requests the sequence's ratio is within 1 % of the weights
// (relative), for weights whose cycle divides 10,000 and for weights whose
// cycle does not.
func TestMixSequenceRatioWithinOnePercent(t *testing.T) {
	for _, mix := range [][]MixRoute{storefront, {{Name: "a", Weight: 7}, {Name: "b", Weight: 3}, {Name: "c", Weight: 1}}} {
		for _, seed := range []uint64{0, 1, 12345} {
			seq := MixSequence(mix, seed, 10_000)
			sum := 0
			for _, m := range mix {
				sum += m.Weight
			}
			for _, m := range mix {
				got := float64(countOf(seq, m.Name)) / float64(len(seq))
				want := float64(m.Weight) / float64(sum)
				if math.Abs(got-want) > 0.01*want {
					t.Errorf("mix %v seed %d: route %s has %.4f of the requests, want %.4f ± 1 %%", mix, seed, m.Name, got, want)
				}
			}
		}
	}
}

// The sequence is smooth: a route of weight w out of s never waits more
// than about s/w requests (a naive block order, 60 users then 30 lists,
// would make each route's latency depend on where the window cuts).
func TestMixSequenceIsInterleaved(t *testing.T) {
	seq := MixSequence(storefront, 0, 100)
	for _, route := range []string{"user", "list", "create-order"} {
		gap, longest := 0, 0
		for _, r := range seq {
			if r == route {
				gap = 0
				continue
			}
			gap++
			longest = max(longest, gap)
		}
		limits := map[string]int{"user": 1, "list": 3, "create-order": 10}
		if longest > limits[route] {
			t.Errorf("route %s waits up to %d requests in %v, want at most %d", route, longest, seq, limits[route])
		}
	}
	if a, b := MixSequence(storefront, 7, 50), MixSequence(storefront, 7, 50); !slices.Equal(a, b) {
		t.Errorf("one seed gave two sequences:\n%v\n%v", a, b)
	}
	if a, b := MixSequence(storefront, 0, 20), MixSequence(storefront, 3, 20); slices.Equal(a, b) {
		t.Errorf("seeds 0 and 3 gave the same sequence %v; the seed should move its start", a)
	}
}

func countOf(seq []string, name string) int {
	n := 0
	for _, s := range seq {
		if s == name {
			n++
		}
	}
	return n
}

// requestLog is a server that records each request's method and path and
// answers 201 to a POST, 200 otherwise.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) handler(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	l.mu.Lock()
	l.seen = append(l.seen, r.Method+" "+r.URL.Path)
	l.mu.Unlock()
	if r.Method == "POST" {
		w.WriteHeader(http.StatusCreated)
	}
	io.WriteString(w, `{"ok":true}`)
}

func (l *requestLog) log() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// Two stacks loaded with one mix and one seed receive the same sequence
// of requests: each server's request log, read back, is the mix's
// sequence (the shorter log a prefix of the longer), each route cycling
// over its own requests in order. Each route's count in the Result is its
// count in the log's window.
func TestMixSendsTheSameSequenceToEveryStack(t *testing.T) {
	const seed = 42
	var logs [2]requestLog
	var results [2]*Result
	for i := range logs {
		url := httpServer(t, logs[i].handler)
		results[i] = runLoad(t, url, Config{Connections: 1, Duration: 300 * time.Millisecond, Mix: storefront, Seed: seed, Requests: storefrontPool()})
	}
	a, b := logs[0].log(), logs[1].log()
	n := min(len(a), len(b))
	if n < 100 {
		t.Fatalf("only %d and %d requests reached the servers", len(a), len(b))
	}
	if !slices.Equal(a[:n], b[:n]) {
		t.Fatalf("the two stacks saw different sequences:\n%v\n%v", a[:min(n, 30)], b[:min(n, 30)])
	}
	paths := map[string][]string{"user": {"GET /users/1", "GET /users/2"}, "list": {"GET /list"}, "create-order": {"POST /orders"}}
	seq := MixSequence(storefront, seed, n)
	taken := map[string]int{}
	for k, route := range seq {
		want := paths[route][taken[route]%len(paths[route])]
		taken[route]++
		if a[k] != want {
			t.Fatalf("request %d: the server saw %q, want %q (route %s of the sequence)", k+1, a[k], want, route)
		}
	}
	for i, res := range results {
		if len(res.Routes) != 3 || res.Failures() != 0 {
			t.Fatalf("stack %d: routes %+v, errors %v", i+1, res.Routes, res.Errors)
		}
		var sum int64
		for _, rt := range res.Routes {
			sum += rt.Attempts
			if rt.Successes != rt.Attempts || rt.LatencyHist == "" {
				t.Errorf("stack %d route %s: %d of %d succeeded (a POST answered 201 is its success)", i+1, rt.Name, rt.Successes, rt.Attempts)
			}
		}
		if sum != res.Attempts {
			t.Errorf("stack %d: routes' attempts sum to %d, the mix's are %d", i+1, sum, res.Attempts)
		}
	}
}

// Inside a mix, each route keeps its own statuses, failure classes and
// latency: one route failing with 500 and one slow route show in their
// own figures, not in the others'.
func TestMixKeepsRoutesApart(t *testing.T) {
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch {
		case r.URL.Path == "/list":
			w.WriteHeader(http.StatusInternalServerError)
		case r.Method == "POST":
			time.Sleep(5 * time.Millisecond)
			w.WriteHeader(http.StatusCreated)
		}
	})
	res := runLoad(t, url, Config{Connections: 4, Duration: 500 * time.Millisecond, Mix: storefront, Requests: storefrontPool()})
	by := map[string]RouteResult{}
	for _, rt := range res.Routes {
		by[rt.Name] = rt
	}
	user, list, order := by["user"], by["list"], by["create-order"]
	switch {
	case list.Successes != 0 || list.Errors["status_500"] != list.Attempts || list.Attempts == 0:
		t.Errorf("list: %d of %d succeeded, errors %v; want every one status_500", list.Successes, list.Attempts, list.Errors)
	case user.ErrorCount() != 0 || order.ErrorCount() != 0:
		t.Errorf("user errors %v, create-order errors %v; want none (the 500s are list's)", user.Errors, order.Errors)
	case res.Errors["status_500"] != list.Attempts:
		t.Errorf("the mix counts %d status_500, its list route %d", res.Errors["status_500"], list.Attempts)
	case order.LatencyMicros.P50 < 5000 || user.LatencyMicros.P50 >= 5000:
		t.Errorf("p50: create-order %d µs (sleeps 5 ms), user %d µs; each route's latency should be its own", order.LatencyMicros.P50, user.LatencyMicros.P50)
	case res.LatencyMicros.P99 < 5000 || res.LatencyMicros.P50 >= 5000:
		// The whole's histogram is its routes' merged: create-order's
		// successes are over a tenth of them.
		t.Errorf("the mix's p50 %d µs, p99 %d µs; want its slow route in its tail only", res.LatencyMicros.P50, res.LatencyMicros.P99)
	}
}

// ErrorCount is the sum of the route's error classes.
func (r RouteResult) ErrorCount() int64 {
	var n int64
	for _, c := range r.Errors {
		n += c
	}
	return n
}

// In a real run the achieved ratio is the weights' within 1 percentage
// point, over at least 10,000 requests on 8 connections.
func TestMixAchievedRatio(t *testing.T) {
	pool := storefrontPool()
	for i := range pool {
		pool[i].Method, pool[i].Body, pool[i].Expect = "GET", "", nil // the raw server reads heads only
	}
	url := rawServer(t, fixedResponder(okResponse))
	var res *Result
	for d := time.Second; d <= 4*time.Second; d *= 2 {
		if res = runLoad(t, url, Config{Connections: 8, Duration: d, Mix: storefront, Requests: pool}); res.Attempts >= 10_000 {
			break
		}
	}
	if res.Attempts < 10_000 {
		t.Fatalf("only %d requests in 4 s", res.Attempts)
	}
	for _, rt := range res.Routes {
		if math.Abs(rt.Share-rt.WeightShare) > 0.01 {
			t.Errorf("route %s: %.4f of %d requests, weight %.4f", rt.Name, rt.Share, res.Attempts, rt.WeightShare)
		}
	}
}

// A bad mix is refused before any connection, saying what to do.
func TestMixConfigErrors(t *testing.T) {
	pool := storefrontPool()
	cases := []struct {
		mix  []MixRoute
		pool []Request
		want string
	}{
		{[]MixRoute{{Name: "user", Weight: 1}}, pool, `route "list" is not a route of the mix`},
		{append(slices.Clone(storefront), MixRoute{Name: "search", Weight: 5}), pool, "route search has no request"},
		{[]MixRoute{{Name: "user", Weight: 0}, {Name: "list", Weight: 1}, {Name: "create-order", Weight: 1}}, pool, "weight 0"},
		{[]MixRoute{{Name: "user", Weight: 1}, {Name: "user", Weight: 1}}, pool[:1], "named twice"},
		{nil, pool, "has no mix"},
		{storefront, nil, "needs a request pool"},
	}
	for _, c := range cases {
		_, err := Run(t.Context(), Config{URL: "http://127.0.0.1:1/", Mix: c.mix, Requests: c.pool})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("mix %v: error %v, want one saying %q", c.mix, err, c.want)
		}
	}
}

// Flags carry a mix to the generator's command line and back.
func TestMixFlagsRoundTrip(t *testing.T) {
	f := FlagsOf(Config{URL: "http://127.0.0.1:1/", Mix: storefront, Seed: 9, Connections: 1, Duration: time.Second, Timeout: time.Second})
	f.Requests = "pool.jsonl"
	cfg, err := f.Config("http://127.0.0.1:1/")
	if err != nil || !slices.Equal(cfg.Mix, storefront) || cfg.Seed != 9 {
		t.Errorf("mix %v seed %d (%v), want %v seed 9", cfg.Mix, cfg.Seed, err, storefront)
	}
	if _, err := ParseMix("user=60,list"); err == nil {
		t.Error("ParseMix accepted a route without a weight")
	}
}
