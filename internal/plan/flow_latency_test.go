package plan

import (
	"strings"
	"testing"
)

// flowRateFile is a workload of a route and a two-step flow with latency
// windows at 50 % in 5 rounds; extra goes after the protocol.
func flowRateFile(extra string) string {
	return `workload:
  name: shop
  cases:
    - {name: home, path: /}
    - flow:
        name: session
        steps:
          - {name: login, method: POST, path: /login, capture: {token: body.token}}
          - {name: me, path: /me, headers: {Authorization: "Bearer ${token}"}}
profile: quick
protocol:
  rounds: 5
  latency: {rate: 50%}
` + extra + validStacks
}

// A flow case takes latency windows like any case (the flow in the open
// model at the offered flows per second): the plan is accepted, and the
// flow's cells have their latency windows where the route's have them.
func TestFlowInLatencyWindows(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, flowRateFile("")), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatalf("a flow in latency windows: %v", err)
	}
	// quick: interleaved, a fresh process per round; 5 rounds: the rate
	// from rounds 1-2, latency windows in rounds 2-5, one per cell.
	perCase := map[string]int{}
	for _, w := range p.Windows {
		if p.Protocol.LatencyAfter(w) {
			perCase[w.Case]++
			if w.Round < 2 {
				t.Errorf("%s: a latency window before the rate is fixed", w.Key)
			}
		}
	}
	if perCase["session"] != 8 || perCase["home"] != 8 {
		t.Errorf("latency windows per case %v; want 8 each (2 stacks × rounds 2-5)", perCase)
	}
	if c, ok := p.Case("session"); !ok || !c.IsFlow() {
		t.Errorf("session: %+v", c)
	}
}

// A flow case takes a capacity search: its SLO is on the whole flow, and
// a mapping adds SLOs on its steps, kept in the flow's step order.
func TestFlowInCapacity(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, flowRateFile(`capacity:
  slo: p99=20ms
  cases:
    session: {slo: p99=500ms, steps: {me: p99=30ms, login: p99=50ms}}
`)), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatalf("a flow in capacity: %v", err)
	}
	c := p.Capacity.Cases
	if len(c) != 2 || c[0].Case != "home" || c[0].SLO != "p99=20ms" || len(c[0].Steps) != 0 {
		t.Fatalf("capacity cases %+v", c)
	}
	s := c[1]
	if s.Case != "session" || s.SLO != "p99=500ms" || len(s.Steps) != 2 ||
		s.Steps[0] != (StepSLO{"login", "p99=50ms"}) || s.Steps[1] != (StepSLO{"me", "p99=30ms"}) {
		t.Errorf("session %+v; want the whole flow's SLO and its steps' in step order", s)
	}
	if got := s.Steps[0].ParsedSLO(); got.Percentile != 99 || got.Latency.Milliseconds() != 50 {
		t.Errorf("parsed %+v", got)
	}
	// The section's slo is the whole flow's when the flow has none of its own.
	f, err = LoadEnv(writeConfig(t, flowRateFile("capacity: {slo: p99=300ms}\n")), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := f.Resolve(Overrides{}); err != nil || len(p.Capacity.Cases) != 2 || p.Capacity.Cases[1].SLO != "p99=300ms" {
		t.Errorf("section slo: %v %+v", err, p)
	}
}

func TestFlowCapacityProblems(t *testing.T) {
	got := loadProblems(t, flowRateFile(`capacity:
  cases:
    home: {slo: p99=5ms}
    session: {slo: p99=1s, steps: {logn: p99=50ms, me: fast}}
`))
	want := []string{
		`16:11: case home is not a flow`,
		`17:36: flow session has no step "logn"; its steps are login, me`,
		`17:56: the SLO of step session/me: "fast"`,
	}
	matchProblems(t, got, want)
	// Step SLOs without one on the whole flow: said at resolve.
	f, err := LoadEnv(writeConfig(t, flowRateFile("capacity:\n  cases: {session: {steps: {login: p99=50ms}}}\n")), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	// At the flow's entry under cases (line 15, column 20), not at capacity:.
	if _, err := f.Resolve(Overrides{}); err == nil || !strings.Contains(err.Error(), "stackbench.yaml:15:20: capacity: flow session has SLOs on its steps and none on the whole flow") {
		t.Errorf("want the missing whole-flow SLO at the flow's entry, got %v", err)
	}
}
