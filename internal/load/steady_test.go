package load

import (
	"fmt"
	"testing"
	"time"
)

func TestWarmupSliceIsAQuarterOfTheFloorWithinBounds(t *testing.T) {
	for _, c := range []struct{ floor, want time.Duration }{
		{200 * time.Millisecond, 100 * time.Millisecond},
		{500 * time.Millisecond, 125 * time.Millisecond},
		{time.Second, 250 * time.Millisecond},
		{2 * time.Second, 500 * time.Millisecond},
		{10 * time.Second, 500 * time.Millisecond},
	} {
		if got := WarmupSlice(c.floor); got != c.want {
			t.Errorf("WarmupSlice(%v) = %v, want %v", c.floor, got, c.want)
		}
	}
	// The shortest steady warm-up is the floor: three slices judged and
	// the announced one.
	r := NewWarmupRule(500*time.Millisecond, 3*time.Second, 32)
	if r.FloorSlices() != 4 || r.CapSlices() != 24 {
		t.Errorf("quick's rule: %d floor slices and %d cap slices, want 4 and 24", r.FloorSlices(), r.CapSlices())
	}
}

func TestSteady(t *testing.T) {
	for _, c := range []struct {
		counts []int64
		conns  int
		want   bool
	}{
		{nil, 32, false},
		{[]int64{1000, 1000}, 32, false},                  // fewer than three slices
		{[]int64{1000, 1040, 980}, 32, true},              // range 60 ≤ 10 % of 1000
		{[]int64{1000, 1120, 1000}, 32, false},            // range 120 > 100
		{[]int64{300, 600, 2000, 2100, 2050}, 32, true},   // only the last three count
		{[]int64{2000, 2100, 2200, 2300}, 32, false},      // rising 4.5 % a slice: range 200 > 5 % of 2200
		{[]int64{2100, 2300, 2200}, 32, true},             // the same range, not rising
		{[]int64{10000, 10900, 10400}, 32, true},          // 900 ≤ 1040
		{[]int64{10000, 11100, 10400}, 32, false},         // 1100 > 1040
		{[]int64{610, 635, 1300}, 32, false},              // Express's first half-seconds
		{[]int64{1580, 1860, 1850}, 32, false},            // still climbing
		{[]int64{1850, 1860, 1845}, 32, true},             // warm
		{[]int64{5000, 5000, 5000, 5000, 5000}, 32, true}, // flat
		// 16 connections in lockstep at 40 ms: 96–112 a slice blurs by
		// 16, more than 10 %; pairs of slices resolve it and show the ramp.
		{[]int64{96, 112, 112}, 16, false},
		{[]int64{96, 112, 112, 128, 144, 160}, 16, false},
		// TestWarmupWaitsForARampingServer's ramp on a busy host: the last
		// three agree within 10 % (144, 160, 160) but climb, and the six
		// climb beyond chance.
		{[]int64{96, 112, 112, 144, 160, 160}, 16, false},
		{[]int64{208, 208, 208, 208, 208, 208}, 16, true},
		// A slow route (four answers every 300 ms): no block resolves
		// 10 %, so it is judged only on the slice before the cap's (16
		// slices here), whole requests per connection allowed, on blocks
		// of five slices.
		{[]int64{0, 0, 4, 0, 0, 4, 0, 0, 4}, 4, false},
		{[]int64{0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4}, 4, true},
		{[]int64{0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 16}, 4, false},
	} {
		r := NewWarmupRule(500*time.Millisecond, 2*time.Second, c.conns)
		if got := r.Steady(c.counts); got != c.want {
			t.Errorf("Steady(%v) on %d connections = %v, want %v", c.counts, c.conns, got, c.want)
		}
	}
	// quick's Go warm-up (0.5–3 s, 24 slices of 125 ms) on a CPU-heavy
	// route at 32 connections, about 40 completions a slice: judged at the
	// slice before the cap's (the 23rd) on blocks of seven slices,
	// counting noise allowed unless the blocks rise. The first two are
	// README demo PGO cpu warm-ups that the rule without it called not
	// steady (blocks 274, 262, 327; 285, 319, 263); two more of them stay
	// not steady: one rises (295, 318, 360), one spreads past chance (322,
	// 279, 375: 96 against 91 allowed); ramps of that pace are refused.
	for _, c := range []struct {
		counts []int64
		want   bool
	}{
		{[]int64{26, 40, 45, 34, 42, 39, 36, 35, 43, 34, 38, 35, 37, 37, 37, 44, 42, 41, 43, 58, 45, 51, 47}, true},
		{[]int64{22, 42, 35, 44, 48, 44, 41, 34, 39, 44, 49, 43, 53, 46, 39, 45, 41, 32, 34, 38, 35, 40, 43}, true},
		{[]int64{30, 35, 50, 43, 39, 41, 38, 41, 43, 46, 48, 47, 46, 46, 40, 45, 48, 51, 58, 55, 53, 39, 56}, false},
		{[]int64{39, 51, 54, 47, 48, 50, 42, 43, 38, 43, 33, 40, 44, 41, 38, 40, 51, 59, 61, 59, 47, 52, 46}, false},
		{[]int64{10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54}, false},
		{[]int64{30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 40, 45, 45, 50, 50, 55, 55}, false},
	} {
		r := NewWarmupRule(500*time.Millisecond, 3*time.Second, 32)
		if got := r.Steady(c.counts); got != c.want {
			t.Errorf("Steady(%v) on 32 connections at quick's cap = %v, want %v", c.counts, got, c.want)
		}
	}
	// Warm-ups of examples/django-elysia's cpu route (JIT profile: 2–8 s,
	// 500 ms slices, 32 connections). Uvicorn's first: blocks of five
	// slices (317, 373, 330) resolve the 10 % by whole requests (median
	// 330 ≥ 320) but not by counting noise, which allows 60; the rule
	// without it called the warm-up not steady. Gunicorn's fourth climbs
	// (214, 235, 247) and Elysia's first falls by a third (331, 296,
	// 226): both stay not steady.
	for _, c := range []struct {
		counts []int64
		want   bool
	}{
		{[]int64{59, 70, 69, 60, 59, 82, 73, 78, 68, 72, 67, 56, 64, 73, 70}, true},
		{[]int64{48, 39, 40, 40, 47, 55, 44, 46, 45, 45, 55, 45, 46, 54, 47}, false},
		{[]int64{75, 66, 70, 64, 56, 58, 68, 56, 55, 59, 58, 46, 37, 40, 45}, false},
	} {
		r := NewWarmupRule(2*time.Second, 8*time.Second, 32)
		if got := r.Steady(c.counts); got != c.want {
			t.Errorf("Steady(%v) on 32 connections at the JIT cap = %v, want %v", c.counts, got, c.want)
		}
	}
	// A process whose slices jitter by a quarter either way, thousands of
	// requests each: Elysia on Bun serving health (examples/nest-bun-
	// elysia, 500 ms slices, 2–8 s). Three slices never agreed within
	// 10 %, and the warm-up was called not steady at its cap, though it
	// never climbed. Its own jitter (from the differences of the last
	// eight slices) excuses the spread; blocks that climb get no excuse,
	// nor does a ramp whose slices differ by its pace, nor anything
	// before eight slices.
	jit := NewWarmupRule(2*time.Second, 8*time.Second, 32)
	for _, c := range []struct {
		counts []int64
		want   bool
	}{
		{[]int64{41174, 48101, 34861, 32870, 40091, 42405, 45324, 45606, 27518, 31958, 32484, 36152, 42723, 32387, 40092}, true},
		{[]int64{41174, 48101, 34861, 32870, 40091, 42405, 45324, 45606, 27518, 31958, 32484, 36152, 42723, 43387, 48092}, false},
		{[]int64{1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2300, 2600}, false},
		{[]int64{41174, 48101, 34861, 32870, 40091, 32387}, false},
	} {
		if got := jit.Steady(c.counts); got != c.want {
			t.Errorf("Steady(%v) on 32 connections, JIT rule = %v, want %v", c.counts, got, c.want)
		}
	}
	// A slow ramp under jitter: 3 % a slice with ±7 % around it. The last
	// three slices agree (16,500 · 17,000 · 16,800 spread 3 %), so
	// the spread alone called it steady; the slope of the last eight is
	// far above 0 for chance and rises 18 % over them. The same jitter
	// without the ramp stays steady.
	for _, c := range []struct {
		counts []int64
		want   bool
	}{
		{[]int64{13900, 15200, 14100, 15900, 14800, 16500, 17000, 16800}, false},
		{[]int64{15600, 16500, 15900, 16700, 15800, 16500, 17000, 16800}, true},
	} {
		if got := jit.Steady(c.counts); got != c.want {
			t.Errorf("Steady(%v) on 32 connections, JIT rule = %v, want %v", c.counts, got, c.want)
		}
	}
	// Short ramps, before there are eight slices to fit (seen in CI, the
	// ramping test server slowed by a busy host, 16 connections): the last
	// three alone agree within counting noise; the slope of all of them
	// does not. Jitter of the same size without the climb stays steady.
	short := NewWarmupRule(time.Second, 8*time.Second, 16)
	for _, c := range []struct {
		counts []int64
		want   bool
	}{
		{[]int64{96, 103, 121, 137, 155, 184, 161}, false},
		{[]int64{96, 112, 112, 144, 136}, false},
		{[]int64{150, 131, 162, 140, 158, 137, 149}, true},
	} {
		if got := short.Steady(c.counts); got != c.want {
			t.Errorf("Steady(%v) on 16 connections = %v, want %v", c.counts, got, c.want)
		}
	}
	// A ramp that pauses on a plateau gets no counting noise either:
	// internal/run's ramping test server, 16 connections, 1–1.5 s.
	if r := NewWarmupRule(time.Second, 1500*time.Millisecond, 16); r.Steady([]int64{96, 112, 128, 128, 160}) {
		t.Error("a ramp with a plateau (96, 112, 128, 128, 160) judged steady at its cap")
	}
}

func TestDecide(t *testing.T) {
	fast := NewWarmupRule(500*time.Millisecond, 3*time.Second, 32) // slices of 125 ms, floor 4, cap 24
	jit := NewWarmupRule(2*time.Second, 8*time.Second, 32)         // slices of 500 ms, floor 4, cap 16
	slow := NewWarmupRule(200*time.Millisecond, 2*time.Second, 4)  // slices of 100 ms, floor 4, cap 20
	few := NewWarmupRule(500*time.Millisecond, 3*time.Second, 2)   // two connections
	flat := func(n int, c int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = c
		}
		return out
	}
	for _, c := range []struct {
		name   string
		rule   WarmupRule
		counts []int64
		want   WarmupDecision
	}{
		{"too few slices to judge", fast, []int64{2000, 2000}, WarmupContinue},
		{"a warm Go server ends at the floor", fast, flat(3, 2000), WarmupSteady},
		{"a ramp goes on", fast, []int64{500, 1000, 1500}, WarmupContinue},
		{"steady after the ramp", fast, []int64{500, 1000, 1500, 2000, 2010, 1990}, WarmupSteady},
		{"the cap's slice is announced", fast, []int64{500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500, 8000, 8500, 9000, 9500, 10000, 10500, 11000, 11500}, WarmupCapped},
		{"before the cap's slice, on", fast, []int64{500, 1000, 1500, 2000, 2500, 3000}, WarmupContinue},
		{"a JIT's plateau before the floor is not steady", jit, []int64{600, 610}, WarmupContinue},
		{"a JIT steady at its floor", jit, []int64{1800, 1850, 1820}, WarmupSteady},
		{"steady but too few requests, more coming", few, []int64{0, 40, 40, 40}, WarmupContinue},
		{"steady with 300 requests", few, []int64{0, 100, 100, 100}, WarmupSteady},
		{"a slow route is judged before the cap", slow, []int64{0, 0, 4, 0, 0, 4}, WarmupContinue},
		{"a slow route: 2 per connection, 300 out of reach", slow, []int64{0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0}, WarmupSteady},
		{"a slow route capped with nothing done", slow, flat(19, 0), WarmupCapped},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.rule.Decide(c.counts); got != c.want {
				t.Errorf("Decide(%v) = %v, want %v", c.counts, got, c.want)
			}
		})
	}
}

func TestTrend(t *testing.T) {
	for _, c := range []struct {
		h1, h2 int64
		conns  int
		clear  bool
	}{
		{5000, 5200, 32, false}, // 4 %: within tolerance
		{5000, 5600, 32, true},  // +12 %
		{5000, 4400, 32, true},  // slowing down
		{50, 57, 4, false},      // +14 %, but 7 < 2 × 4 connections
		{50, 70, 4, true},       // +40 % and 20 > 8
		{0, 100, 4, false},      // nothing to compare against
		{500, 600, 64, false},   // +20 %, but 100 < 2 × 64 whole requests
	} {
		change, clear := Trend(c.h1, c.h2, c.conns)
		if clear != c.clear {
			t.Errorf("Trend(%d, %d, %d) = %+.3f, clear %v; want clear %v", c.h1, c.h2, c.conns, change, clear, c.clear)
		}
	}
}

func (d WarmupDecision) String() string {
	return fmt.Sprint([]string{"continue", "steady", "capped"}[d])
}
