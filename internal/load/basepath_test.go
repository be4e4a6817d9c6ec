package load

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestPoolUnderBasePath: a pool's paths go under the URL's path (a
// stack's base path), for HTTP/1.1 and h2c alike; a URL ending in '/'
// adds nothing.
func TestPoolUnderBasePath(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = true
		mu.Unlock()
	})
	pool := []Request{{Path: "/users/1"}, {Path: "/users/2?x=1"}}
	runLoad(t, url+"/api/", Config{Connections: 1, Duration: 100 * time.Millisecond, Requests: pool})
	runLoad(t, url+"/", Config{Connections: 1, Duration: 100 * time.Millisecond, Requests: []Request{{Path: "/root"}}})
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"/api/users/1", "/api/users/2", "/root"} {
		if !seen[want] {
			t.Errorf("no request for %s; served %v", want, seen)
		}
	}
	for p := range seen {
		if p != "/api/users/1" && p != "/api/users/2" && p != "/root" {
			t.Errorf("request for %s, outside the base path", p)
		}
	}
}
