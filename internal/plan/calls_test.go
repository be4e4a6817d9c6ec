package plan

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// calls: chooses the metrics a run calls, its headline first; a latency
// metric needs latency windows; --calls overrides the file; the default
// calls what the run measures.
func TestCallsKey(t *testing.T) {
	path := writeConfig(t, `profile: quick
protocol:
  cases: [health, user]
  latency: {rate: 50%}
  calls: [cost, throughput]
stacks:
  - {name: a, dir: apps/a, start: ./server}
  - {name: b, dir: apps/b, start: ./server}
`)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	pr := p.Protocol
	if !slices.Equal(pr.CalledMetrics(), []string{MetricCost, MetricThroughput}) || pr.Headline() != MetricCost || !pr.Called(MetricThroughput) || pr.Called(MetricP99) {
		t.Errorf("calls %v, headline %s", pr.CalledMetrics(), pr.Headline())
	}
	flag, err := f.Resolve(Overrides{Calls: []string{MetricP99}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(flag.Protocol.CalledMetrics(), []string{MetricP99}) || flag.Fingerprint == p.Fingerprint {
		t.Errorf("--calls p99: %v, fingerprint changed %v", flag.Protocol.CalledMetrics(), flag.Fingerprint != p.Fingerprint)
	}
	f.protocol.Calls = nil
	def, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(def.Protocol.CalledMetrics(), StepMetrics) {
		t.Errorf("default with latency windows: %v, want every metric", def.Protocol.CalledMetrics())
	}
	f.protocol.Latency = nil
	def, err = f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(def.Protocol.CalledMetrics(), []string{MetricThroughput, MetricPerCPU}) {
		t.Errorf("default without latency windows: %v", def.Protocol.CalledMetrics())
	}
	// A latency metric without latency windows is refused, saying what to add.
	var ce *ConfigError
	if _, err := f.Resolve(Overrides{Calls: []string{MetricThroughput, MetricCost}}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "calls: cost is measured at a fixed rate") || !strings.Contains(err.Error(), "add latency: {rate: 50%}") {
		t.Errorf("calls cost without latency: %v", err)
	}
}

func TestCallsKeyRefused(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"  calls: [speed]\n", `2:10: calls "speed": "speed" is not one of throughput, per_cpu, p50, p99, cost`},
		{"  calls: [cost, cost]\n", `calls "cost,cost": cost is listed twice; write each once, e.g. cost`},
		{"  calls: []\n", `2:10: calls is an empty list`},
		{"  calls: {cost: 1}\n", `2:10: calls must be a list`},
	} {
		got := strings.Join(loadProblems(t, "protocol:\n"+c.yaml+"stacks:\n  - {name: a, dir: apps/a, start: ./server}\n"), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: problems:\n%s\nwant %q", c.yaml, got, c.want)
		}
	}
	// One name is a list of one.
	path := writeConfig(t, "protocol:\n  calls: throughput\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n")
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Protocol.Calls, []string{MetricThroughput}) {
		t.Errorf("calls: throughput gave %v", p.Protocol.Calls)
	}
}

// TestClosedLoopKey: a run calling only metrics of the latency windows
// measures its closed-loop windows in round 1 only (closed_loop: first by
// default), so that a later round is its latency windows alone and costs
// less; every keeps them; first is refused where it cannot work.
func TestClosedLoopKey(t *testing.T) {
	path := writeConfig(t, `profile: quick
protocol:
  cases: [health, user]
  latency: {rate: 50%}
  calls: [cost]
  rounds: auto
  budget: 8m
stacks:
  - {name: a, dir: apps/a, start: ./server}
  - {name: b, dir: apps/b, start: ./server}
`)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Protocol.ClosedLoop != ClosedLoopFirst {
		t.Fatalf("calls: [cost] with latency windows: closed_loop %q, want first", first.Protocol.ClosedLoop)
	}
	every, err := f.Resolve(Overrides{ClosedLoop: ClosedLoopEvery})
	if err != nil {
		t.Fatal(err)
	}
	if every.Protocol.ClosedLoop != "" || every.Fingerprint == first.Fingerprint {
		t.Errorf("--closed-loop every: %q (want it kept as empty), fingerprint changed %v", every.Protocol.ClosedLoop, every.Fingerprint != first.Fingerprint)
	}
	// The rate rounds (1 and 2) are measured whole; round 3's closed-loop
	// windows are not.
	pr := first.Protocol
	if pr.RateRounds() != 2 {
		t.Fatalf("rate rounds %d, want 2", pr.RateRounds())
	}
	for _, w := range first.Windows {
		if got, want := pr.ClosedLoopIn(w), w.Round <= 2; got != want {
			t.Errorf("%s: measured %v, want %v", w.Key, got, want)
		}
		if every.Protocol.ClosedLoopIn(w) != true {
			t.Errorf("%s: every skips it", w.Key)
		}
	}
	st, _ := first.Stack("a")
	w2 := Window{Round: 3, Stack: "a"}
	if got := pr.FixedRateWarmup(st, w2); got != 2*pr.Warmup {
		t.Errorf("a latency window with no closed-loop window before it warms up %s, want twice the floor %s", got, 2*pr.Warmup)
	}
	if got := pr.FixedRateWarmup(st, Window{Round: 2, Stack: "a"}); got != pr.Warmup {
		t.Errorf("after a closed-loop window: %s, want the floor %s", got, pr.Warmup)
	}
	// A later round costs less, and the budget affords more rounds.
	if a, b := first.RoundEstimate(), every.RoundEstimate(); a >= b*7/10 {
		t.Errorf("a later round: %s with closed_loop: first against %s with every; want well under", a, b)
	}
	if a, b := first.Protocol.BudgetRounds, every.Protocol.BudgetRounds; a <= b {
		t.Errorf("budget rounds: %d with first, %d with every", a, b)
	}
	// Both rate rounds have their closed-loop windows: the budget pays for
	// them before the later rounds, as the run will.
	var rate []Window
	for _, w := range first.Windows {
		if w.Round <= 2 {
			rate = append(rate, w)
		}
	}
	if want := 2 + int((first.Protocol.Budget-first.EstimateWindows(rate))/first.RoundEstimate()); first.Protocol.BudgetRounds != want {
		t.Errorf("budget rounds %d; want %d: two rate rounds, then rounds of %s", first.Protocol.BudgetRounds, want, first.RoundEstimate())
	}
	// Calling throughput keeps every round's closed-loop windows.
	thr, err := f.Resolve(Overrides{Calls: []string{MetricCost, MetricThroughput}})
	if err != nil {
		t.Fatal(err)
	}
	if thr.Protocol.ClosedLoop != "" {
		t.Errorf("calls cost and throughput: closed_loop %q, want every", thr.Protocol.ClosedLoop)
	}
	var ce *ConfigError
	if _, err := f.Resolve(Overrides{Calls: []string{MetricCost, MetricPerCPU}, ClosedLoop: ClosedLoopFirst}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "the run calls per_cpu, which needs them in every round") {
		t.Errorf("closed_loop first calling per_cpu: %v", err)
	}
	f.protocol.Latency = nil
	f.protocol.Calls = nil
	if _, err := f.Resolve(Overrides{ClosedLoop: ClosedLoopFirst}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "add latency: {rate: 50%}") {
		t.Errorf("closed_loop first without latency windows: %v", err)
	}
}
