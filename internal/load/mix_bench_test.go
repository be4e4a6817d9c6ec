package load

import (
	"slices"
	"strconv"
	"testing"
)

// BenchmarkNextRequest is the cost of choosing each request: one request,
// a pool of 1,000 round-robin, and a three-route mix over the same 1,000.
// None allocates (allocs/op).
func BenchmarkNextRequest(b *testing.B) {
	pool := make([]Request, 1000)
	routes := []string{"user", "list", "create-order"}
	for i := range pool {
		pool[i] = Request{Method: "GET", Path: "/r/" + strconv.Itoa(i), Route: routes[i%3]}
	}
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"single", Config{URL: "http://127.0.0.1:1/one"}},
		{"pool", Config{URL: "http://127.0.0.1:1/", Requests: pool}},
		{"mix3", Config{URL: "http://127.0.0.1:1/", Requests: pool, Mix: storefront, Seed: 1}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.cfg.Connections = 1
			c.cfg.Requests = slices.Clone(c.cfg.Requests)
			if c.cfg.Mix == nil {
				for i := range c.cfg.Requests {
					c.cfg.Requests[i].Route = ""
				}
			}
			r, err := prepare(b.Context(), c.cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer r.workers[0].close()
			b.ReportAllocs()
			var sink int32
			for b.Loop() {
				sink += r.nextRequest().route
			}
			_ = sink
		})
	}
}
