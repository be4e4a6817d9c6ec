package plan

import (
	"strings"
	"testing"
	"time"
)

func TestRuntimeRaisesTheWarmup(t *testing.T) {
	q, _ := Profile("quick")
	for _, c := range []struct {
		runtime    string
		floor, cap time.Duration
	}{
		{"", 500 * time.Millisecond, 3 * time.Second},
		{"go", 500 * time.Millisecond, 3 * time.Second},
		{"native", 500 * time.Millisecond, 3 * time.Second},
		{"node", 2 * time.Second, 8 * time.Second},
		{"bun", 2 * time.Second, 8 * time.Second},
		{"python", 2 * time.Second, 8 * time.Second},
		{"jvm", 2 * time.Second, 8 * time.Second},
	} {
		floor, cap := q.WarmupFor(Stack{Runtime: c.runtime})
		if floor != c.floor || cap != c.cap {
			t.Errorf("runtime %q: warm-up %v–%v, want %v–%v", c.runtime, floor, cap, c.floor, c.cap)
		}
	}
	// A protocol warm-up above the JIT floor wins; a cap below the floor
	// makes it fixed.
	p := q
	p.Warmup, p.WarmupMax = 4*time.Second, time.Second
	if floor, cap := p.WarmupFor(Stack{Runtime: "node"}); floor != 4*time.Second || cap != 8*time.Second {
		t.Errorf("node with warmup 4s: %v–%v, want 4s–8s", floor, cap)
	}
	if floor, cap := p.WarmupFor(Stack{}); floor != 4*time.Second || cap != 4*time.Second {
		t.Errorf("warmup 4s, warmup_max 1s: %v–%v, want a fixed 4s", floor, cap)
	}
	// The floor and a third of the way to the cap: what the demo's Go
	// warm-ups (1.23–1.35 s) and Express's (4.11 s) averaged here.
	if got := q.ExpectedWarmup(Stack{}); got < 1330*time.Millisecond || got > 1340*time.Millisecond {
		t.Errorf("quick's expected Go warm-up %v, want 0.5s and a third of 2.5s", got)
	}
	if got := q.ExpectedWarmup(Stack{Runtime: "node"}); got != 4*time.Second {
		t.Errorf("quick's expected JIT warm-up %v, want 2s and a third of 6s", got)
	}
}

func TestRuntimeKeyIsValidatedAndFingerprinted(t *testing.T) {
	file := func(rt string) string {
		return "workload: micro\nprofile: quick\nstacks:\n  - name: a\n    dir: apps/a\n    start: ./a\n    runtime: " + rt + "\n"
	}
	ps := loadProblems(t, file("nodejs"))
	if len(ps) != 1 || !strings.Contains(ps[0], `7:14: runtime "nodejs" is not known; write one of go, native, node`) {
		t.Fatalf("runtime nodejs: %q", ps)
	}
	fps := map[string]string{}
	for _, rt := range []string{"go", "node"} {
		f, err := LoadEnv(writeConfig(t, file(rt)), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.Resolve(Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Stacks[0].Runtime != rt {
			t.Errorf("runtime %q read as %q", rt, p.Stacks[0].Runtime)
		}
		fps[rt] = p.Fingerprint
	}
	if fps["go"] == fps["node"] {
		t.Error("the fingerprint does not change with the runtime")
	}
}
