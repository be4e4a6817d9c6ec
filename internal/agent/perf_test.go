package agent

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/profiling/perfrec"
)

// perf records a started tree between two instants and sends its profile
// back; a request for no process, or for a window that ends before it
// starts, is refused.
func TestPerfRecordsATree(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := s.client.Perf(ctx, PerfSpec{Name: "nobody", From: now, To: now.Add(time.Second)}); err == nil || !strings.Contains(err.Error(), `no process "nobody"`) {
		t.Errorf("perf of no process = %v", err)
	}
	if _, err := s.client.Perf(ctx, PerfSpec{Name: "x", From: now, To: now}); err == nil || !strings.Contains(err.Error(), "ends after it starts") {
		t.Errorf("perf of an empty window = %v", err)
	}
	if _, err := perfrec.Check(ctx, t.TempDir()); err != nil {
		t.Skipf("perf does not work here: %v", err)
	}
	port, _ := s.client.FreePort(ctx)
	exe, _ := os.Executable()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the server's log goes there
	if _, _, err := s.client.Start(ctx, StartSpec{Name: "server", Dir: t.TempDir(), Command: exe,
		Env: []string{serveEnv + "=1", "PORT=" + strconv.Itoa(port)}, Port: port, HealthPath: "/health",
		LogPath: "server", BootTimeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	// perf takes a while to start on a busy host; the window opens after.
	from := time.Now().Add(2 * time.Second)
	b, err := s.client.Perf(ctx, PerfSpec{Name: "server", From: from, To: from.Add(500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the profile sent is no pprof profile: %v", err)
	}
	// An idle server takes few samples, maybe none; what is checked is
	// the window and the rate.
	if p.DurationNanos != (500*time.Millisecond).Nanoseconds() || p.Period != int64(time.Second)/perfrec.RateHz {
		t.Errorf("profile over %d ns every %d ns; want the 500 ms window at %d Hz", p.DurationNanos, p.Period, perfrec.RateHz)
	}
}
