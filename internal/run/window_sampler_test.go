package run

import (
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/proc"
)

// The generator's events reach the harness late (a pipe, a goroutine
// waiting for CPU); the sampler must still open and close on the load's own
// boundaries, which the events carry, not when the events arrive.
func TestWindowSamplerFollowsTheLoadsBoundariesNotItsEvents(t *testing.T) {
	const (
		warmup = 100 * time.Millisecond
		window = 300 * time.Millisecond
		late   = 150 * time.Millisecond // how late every event arrives
		within = 75 * time.Millisecond  // the timers' allowed lateness
	)
	ws := newWindowSampler(proc.NewSampler(20*time.Millisecond, proc.SelfGroup("harness")), window)
	t0 := time.Now()
	start, end := t0.Add(warmup), t0.Add(warmup+window)
	ws.event(load.Event{Kind: load.WarmupStart, UnixNano: t0.UnixNano()})
	ws.event(load.Event{Kind: load.MeasureAt, UnixNano: start.UnixNano()})
	time.Sleep(time.Until(start.Add(late)))
	ws.event(load.Event{Kind: load.MeasureStart, UnixNano: start.UnixNano()})
	time.Sleep(time.Until(end.Add(late)))
	ws.event(load.Event{Kind: load.MeasureEnd, UnixNano: end.UnixNano()})
	s := ws.result()
	if s == nil {
		t.Fatal("the sampler never opened")
	}
	openLag, closeLag := s.Opened.Sub(start), s.Opened.Add(s.Wall).Sub(end)
	if openLag < -2*time.Millisecond || openLag > within || closeLag < -2*time.Millisecond || closeLag > within {
		t.Errorf("sampler opened %v and closed %v after the load's boundaries, want each under %v (events came %v late)", openLag, closeLag, within, late)
	}
	if again := ws.result(); again != s {
		t.Error("result is not idempotent")
	}
}

// A generator that dies during the warm-up never opens the window: no
// stats, and the start timer must not open a sampler nobody stops.
func TestWindowSamplerClosedBeforeItsStart(t *testing.T) {
	ws := newWindowSampler(proc.NewSampler(0, proc.SelfGroup("harness")), time.Second)
	ws.event(load.Event{Kind: load.WarmupStart, UnixNano: time.Now().UnixNano()})
	ws.event(load.Event{Kind: load.MeasureAt, UnixNano: time.Now().Add(50 * time.Millisecond).UnixNano()})
	if s := ws.result(); s != nil {
		t.Errorf("stats %+v for a window that never started", s)
	}
	time.Sleep(100 * time.Millisecond)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.started {
		t.Error("the start timer opened the sampler after the window was closed")
	}
}
