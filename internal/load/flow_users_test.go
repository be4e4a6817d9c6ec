package load

import (
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// firstDraws runs a one-step flow whose path holds a ${rand} draw at conns
// connections, its users numbered from firstUser, and returns each
// user's first request path (the first on each connection: one user a
// connection).
func firstDraws(t *testing.T, conns, firstUser int) []string {
	t.Helper()
	var mu sync.Mutex
	first := map[string]string{}
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if _, ok := first[r.RemoteAddr]; !ok {
			first[r.RemoteAddr] = r.URL.RequestURI()
		}
		mu.Unlock()
	})
	flow := &Flow{Name: "draw", Steps: []FlowStep{{Name: "one", Path: "/u?v=${rand:0..1000000000}"}}}
	res := runLoad(t, url, Config{Connections: conns, Duration: 100 * time.Millisecond, Flow: flow, Seed: 9, FirstUser: firstUser})
	if res.Flow == nil || res.Flow.Completed == 0 {
		t.Fatalf("no flow completed: %+v", res.Flow)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(first) != conns {
		t.Fatalf("%d connections reached the server; want %d", len(first), conns)
	}
	return slices.Sorted(maps.Values(first))
}

// Generators that share one flow's users (on several hosts) each number
// theirs from where the one before ended (FirstUser): together their
// users make the same first draws as one generator running them all,
// while two generators both starting at user 0 would repeat each other.
func TestFlowFirstUserSplitsTheUsers(t *testing.T) {
	whole := firstDraws(t, 4, 0)
	split := slices.Sorted(slices.Values(append(firstDraws(t, 2, 0), firstDraws(t, 2, 2)...)))
	if !slices.Equal(whole, split) {
		t.Fatalf("users 0-1 and 2-3 drew %v; users 0-3 in one run %v", split, whole)
	}
	again := slices.Sorted(slices.Values(append(firstDraws(t, 2, 0), firstDraws(t, 2, 0)...)))
	if slices.Equal(whole, again) {
		t.Fatalf("two generators of users 0-1 drew %v, as users 0-3 did", again)
	}
}

// FirstUser numbers a flow's users: it is refused without a flow, or
// below 0, on the command line and in a Config.
func TestFirstUserNeedsAFlow(t *testing.T) {
	if _, err := (Flags{Connections: 2, Duration: time.Second, Timeout: time.Second, FirstUser: 3}).Config("http://127.0.0.1:1/"); err == nil {
		t.Error("--first-user without --flow was accepted")
	}
	if _, err := (Flags{Connections: 2, Duration: time.Second, Timeout: time.Second, Flow: "f.json", FirstUser: -1}).Config("http://127.0.0.1:1/"); err == nil {
		t.Error("--first-user -1 was accepted")
	}
	f := Flags{Connections: 2, Duration: time.Second, Timeout: time.Second, Streams: 1, Flow: "f.json", FirstUser: 3}
	cfg, err := f.Config("http://127.0.0.1:1/")
	if err != nil || cfg.FirstUser != 3 {
		t.Fatalf("--first-user 3 --flow: %v, FirstUser %d", err, cfg.FirstUser)
	}
	if args := f.Args("http://127.0.0.1:1/"); !slices.Contains(args, "--first-user") {
		t.Errorf("Args %v leaves out --first-user", args)
	}
	if _, err := withDefaults(Config{FirstUser: 1}); err == nil {
		t.Error("a Config with FirstUser and no flow was accepted")
	}
}
