package plan

import (
	"testing"

	"github.com/stackbench/stackbench/internal/workload"
)

// A flow is a case: its steps with their templates, captures, think time
// and parity modes (a write compared by status by default).
func TestFlowCase(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, `workload:
  name: shop
  cases:
    - {name: home, path: /}
    - flow:
        name: session
        inserts: true
        database: true
        steps:
          - {name: login, method: POST, path: /login, body: '{"u":"${rand:1..9}"}', capture: {token: body.token}}
          - name: list
            path: /items
            headers: {Authorization: "Bearer ${token}"}
            capture: {id: body.items.#.id}
            think: 100ms
          - {name: read, path: "/items/${id}", ignore: [updatedAt]}
          - {name: like, method: POST, path: "/items/${id}/likes", expect: [201]}
protocol:
  cases: [session]
`+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := f.Workload.Case("session")
	if !ok || !c.IsFlow() || len(c.Flow.Steps) != 4 || !c.Inserts {
		t.Fatalf("session: %+v", c)
	}
	list, like := c.Flow.Steps[1], c.Flow.Steps[3]
	if list.ThinkMillis != 100 || list.Capture["id"] != "body.items.#.id" || list.Headers["Authorization"] != "Bearer ${token}" || like.Expect[0] != 201 {
		t.Errorf("steps %+v", c.Flow.Steps)
	}
	if c.FlowParity[0].Compare != workload.CompareStatus || c.FlowParity[2].Compare != workload.CompareJSON || c.FlowParity[2].Ignore[0] != "updatedAt" {
		t.Errorf("parity %+v", c.FlowParity)
	}
	if _, err := f.Resolve(Overrides{}); err != nil {
		t.Fatal(err)
	}
}

func TestFlowCaseProblems(t *testing.T) {
	got := loadProblems(t, `workload:
  name: shop
  cases:
    - {name: home, path: /}
    - flow: {name: a, steps: [{name: s, path: "/x/${id}"}]}
    - flow: {name: b}
    - flow: {name: c, steps: [{name: s, path: /x, think: forever, colour: red}]}
    - flow: {name: d, steps: [{name: s, path: /x}]}
    - mix: {name: m, of: {home: 1, d: 1}}
`+validStacks)
	want := []string{
		`5:13: flow a: step s: path: ${id} is not captured by an earlier step of the flow`,
		`6:13: flow b has no steps`,
		`7:58: think "forever": a duration`,
		`7:67: unknown key "colour" in a flow step`,
		`9:7: mix m: route d is a flow`,
	}
	matchProblems(t, got, want)
}

// A flow runs on HTTP/2 stacks too (h2c, and h2 over TLS: each stream a
// user), beside an HTTP/1.1 one: the plan takes it on all three.
func TestFlowCaseOnHTTP2Stacks(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, `workload:
  name: shop
  cases:
    - flow:
        name: session
        steps:
          - {name: login, method: POST, path: /login, capture: {token: body.token}}
          - {name: me, path: /me, headers: {Authorization: "Bearer ${token}"}}
protocol:
  cases: [session]
stacks:
  - {name: json, dir: apps/a, start: ./s}
  - {name: json-h2c, dir: apps/a, start: ./s, protocol: h2c, streams: 4}
  - {name: json-h2, dir: apps/a, start: ./s, protocol: h2}
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatalf("a flow on h2c and h2 stacks: %v", err)
	}
	if len(p.Stacks) != 3 {
		t.Errorf("%d stacks, want 3", len(p.Stacks))
	}
}
