package plan

import (
	"strings"
	"testing"
)

// A flow goes to generator hosts in closed-loop windows (each runs its
// share of the users); at a fixed rate across them it is refused, naming
// what to leave out.
func TestFlowAcrossGeneratorHosts(t *testing.T) {
	file := func(protocol string) string {
		return `hosts:
  app1: {ssh: bench@app1.example}
  load1: {ssh: bench@load1.example}
  load2: {ssh: bench@load2.example}
roles:
  server: app1
  generators: [load1, load2]
workload:
  name: shop
  cases:
    - flow: {name: session, steps: [{name: login, method: POST, path: /login, capture: {token: body.token}}, {name: me, path: "/me?t=${token}"}]}
protocol:
  cases: [session]
` + protocol + validStacks
	}
	f, err := LoadEnv(writeConfig(t, file("")), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Resolve(Overrides{}); err != nil {
		t.Fatalf("a flow loaded from two generator hosts: %v", err)
	}
	f, err = LoadEnv(writeConfig(t, file("  latency: {rate: 100}\n")), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Resolve(Overrides{}); err == nil || !strings.Contains(err.Error(), `case "session" is a flow, and flows at a fixed rate are not yet split across generator hosts`) {
		t.Fatalf("a flow at a fixed rate across generator hosts: %v", err)
	}
	// A capacity search offers fixed rates too.
	f, err = LoadEnv(writeConfig(t, file("")+"capacity:\n  slo: p99=500ms\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Resolve(Overrides{}); err == nil || !strings.Contains(err.Error(), `capacity: case "session" is a flow, and a capacity search offers it fixed rates, which are not yet split across generator hosts`) {
		t.Fatalf("a flow's capacity search across generator hosts: %v", err)
	}
}
