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
