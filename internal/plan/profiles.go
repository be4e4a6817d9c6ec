package plan

import (
	"fmt"
	"slices"
	"time"
)

// profiles are the named protocols; a file's protocol section and the
// command line override them field by field.
var profiles = map[string]Protocol{
	// quick: a first look and the README's demo; a few stacks × seven
	// cases finish in minutes on a 2-core machine. Short windows and many
	// rounds: on that machine a window's figure varies 1–2 % within one
	// process and 5–15 % between fresh processes, so a second of window is
	// enough and precision comes from more processes. Interleaved, so
	// steps are paired by round; as many rounds as the 8-minute budget
	// affords, up to 16, while some step is undecided. The warm-up runs
	// until throughput is steady (trap T19): at least 0.5 s, which a Go
	// server warm from its first request needs and no more, at most 3 s;
	// a JIT runtime (runtime: node, bun, python, …) at least 2 s, past
	// the plateau V8 shows before its optimising tier, and at most 8 s.
	"quick": {
		Profile:      "quick",
		Concurrency:  []int{32},
		Warmup:       500 * time.Millisecond,
		WarmupMax:    3 * time.Second,
		JITWarmup:    2 * time.Second,
		JITWarmupMax: 8 * time.Second,
		Window:       1 * time.Second,
		Timeout:      60 * time.Second,
		Rounds:       4,
		Adaptive:     true,
		MaxRounds:    16,
		Budget:       8 * time.Minute,
		Layout:       LayoutInterleaved,
		Fresh:        FreshRound,
		BootStarts:   5,
		Gate:         Gate{Mode: GateAuto, Retries: 1, Wait: 10 * time.Second},
		MinEffect:    DefaultMinEffect,
	},
	// standard: the default. Like quick, precision comes from processes,
	// not long windows: a warm-up until steady of 1–10 s (3–15 s for a
	// JIT runtime) and 5 s windows, at least 6 rounds and as many more, up to 12, as undecided
	// steps need and the 1 h 30 min budget affords; interleaved, so steps
	// are paired by round (8 pairs are the first that can decide at the
	// per-look α of 6 to 12 rounds).
	"standard": {
		Profile:      "standard",
		Concurrency:  []int{10, 100},
		Warmup:       1 * time.Second,
		WarmupMax:    10 * time.Second,
		JITWarmup:    3 * time.Second,
		JITWarmupMax: 15 * time.Second,
		Window:       5 * time.Second,
		Timeout:      60 * time.Second,
		Rounds:       6,
		Adaptive:     true,
		MaxRounds:    12,
		Budget:       90 * time.Minute,
		Layout:       LayoutInterleaved,
		Fresh:        FreshRound,
		BootStarts:   10,
		Gate:         Gate{Mode: GateAuto, Retries: 3, Wait: 30 * time.Second},
		MinEffect:    DefaultMinEffect,
	},
	// full: the published protocol. A warm-up until steady of 5–20 s
	// (10–30 s for a JIT runtime).
	"full": {
		Profile:      "full",
		Concurrency:  []int{10, 100, 500},
		Warmup:       5 * time.Second,
		WarmupMax:    20 * time.Second,
		JITWarmup:    10 * time.Second,
		JITWarmupMax: 30 * time.Second,
		Window:       30 * time.Second,
		Timeout:      60 * time.Second,
		Rounds:       5,
		Layout:       LayoutGrouped,
		Fresh:        FreshRound,
		BootStarts:   30,
		Gate:         Gate{Mode: GateAuto, Retries: 3, Wait: 60 * time.Second},
		MinEffect:    DefaultMinEffect,
	},
}

// DefaultMaxRounds is the most rounds of rounds: auto when neither the
// profile nor the file says.
const DefaultMaxRounds = 10

// DefaultMinEffect is every profile's minimum effect: 5 %, the same as
// stats.DefaultMinEffect (plan does not import stats).
const DefaultMinEffect = 0.05

// ProfileNames lists the profiles from the shortest to the longest.
func ProfileNames() []string { return []string{"quick", "standard", "full"} }

// Profile returns a profile's protocol. Its Cases are empty: every case of
// the workload.
func Profile(name string) (Protocol, bool) {
	p, ok := profiles[name]
	p.Concurrency = slices.Clone(p.Concurrency)
	return p, ok
}

// WarmupText describes a protocol's warm-up: "500ms" when fixed,
// "until steady, 500ms–3s (JIT runtimes 2s–8s)" otherwise.
func WarmupText(p Protocol) string {
	if p.WarmupMax <= p.Warmup && p.JITWarmupMax <= p.JITWarmup {
		return p.Warmup.String()
	}
	s := fmt.Sprintf("until steady, %s–%s", p.Warmup, maxDuration(p.WarmupMax, p.Warmup))
	if p.JITWarmup > p.Warmup || p.JITWarmupMax > p.WarmupMax {
		floor, cap := p.WarmupFor(Stack{Runtime: "node"})
		s += fmt.Sprintf(" (JIT runtimes %s–%s)", floor, cap)
	}
	return s
}

// ExpectedWarmup is what the plan's estimates count for one warm-up of a
// stack: the floor when it is fixed; otherwise the floor and a third of
// the way to the cap. Measured on this project's 2-core machine (December
// 2026, a quiet host): the README demo's Go warm-ups (0.5–3 s) averaged
// 1.23 and 1.35 s over two runs, Express's (2–8 s) 4.11 s; the floor and
// a third give 1.33 and 4.0 s. The previous rule (the floor and two
// slices: 0.75 s for Go) made a round take 35 % longer than estimated,
// so the demo's budget ended its rounds before the look the plan showed.
func (p Protocol) ExpectedWarmup(s Stack) time.Duration {
	floor, cap := p.WarmupFor(s)
	if cap <= floor {
		return floor
	}
	return floor + (cap-floor)/3
}
