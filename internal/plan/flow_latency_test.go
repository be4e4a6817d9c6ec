package plan

import (
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
