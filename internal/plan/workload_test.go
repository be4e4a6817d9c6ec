package plan

import (
	"strings"
	"testing"
)

func TestCustomWorkload(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, `workload:
  name: shop
  health: /ping
  cases:
    - name: hello
      path: /hello
    - name: buy
      method: post
      path: /carts/7/items
      headers: {Content-Type: application/json, X-Trace: "1"}
      body: '{"sku":"A-1","qty":2}'
      expect: [201, 202]
      inserts: true
      database: true
protocol:
  cases: [buy, hello]
`+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	w := f.Workload
	if !f.Custom || w.Name != "shop" || !w.NeedsDatabase || len(w.Cases) != 2 {
		t.Fatalf("workload %+v", w)
	}
	hello, buy := w.Cases[0], w.Cases[1]
	if hello.Method != "GET" || hello.Path != "/hello" || len(hello.Expect) != 1 || hello.Expect[0] != 200 || hello.Database {
		t.Errorf("defaults of a case: %+v", hello)
	}
	if buy.Method != "POST" || string(buy.Body) != `{"sku":"A-1","qty":2}` || !buy.Inserts ||
		len(buy.Header) != 2 || buy.Header[0].Name != "Content-Type" || buy.Header[1].Value != "1" ||
		len(buy.Expect) != 2 || buy.Expect[1] != 202 {
		t.Errorf("buy: %+v", buy)
	}
	if f.Stacks[0].Health != "/ping" {
		t.Errorf("a stack of a custom workload polls %q, want the workload's /ping", f.Stacks[0].Health)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Protocol.Cases, ","); got != "buy,hello" || p.Cases[0].Name != "buy" || !p.NeedsDatabase {
		t.Errorf("cases %s, needs database %v", got, p.NeedsDatabase)
	}
	// Selecting only the case without a database keeps the need for one:
	// the stacks connect at start and the parity gate checks every case.
	p, err = f.Resolve(Overrides{Cases: []string{"hello"}})
	if err != nil || !p.NeedsDatabase {
		t.Errorf("hello alone: needs database %v, err %v", p.NeedsDatabase, err)
	}
}

func TestCustomWorkloadProblems(t *testing.T) {
	got := loadProblems(t, `workload:
  name: micro
  cases:
    - name: a
      method: FETCH
      expect: 999
      inserts: true
      colour: red
    - name: a
      path: nope
    - path: /x
      headers: [a]
      body: {a: 1}
protocol:
  cases: [a, zzz]
`+validStacks)
	want := []string{
		`2:9: "micro" is a built-in workload; give your own workload another name`,
		`4:7: this case has no path`,
		`5:15: unknown method "FETCH"`,
		`6:15: expect 999 is not an HTTP status`,
		`7:7: a case that inserts rows uses the database; add database: true`,
		`8:7: unknown key "colour" in a case`,
		`10:13: path "nope" must start with '/'; write e.g. path: /nope`,
		`11:7: this case has no name`,
		`12:16: headers must be a mapping`,
		`13:13: body must be text, not a mapping`,
	}
	matchProblems(t, got, want)
}

func TestCustomWorkloadDuplicateCaseAndNoCases(t *testing.T) {
	got := loadProblems(t, "workload:\n  name: w\n  cases:\n    - {name: a, path: /a}\n    - {name: a, path: /b}\n"+validStacks)
	if len(got) != 1 || !strings.HasPrefix(got[0], `5:7: case name "a" is already used at line 4`) {
		t.Errorf("got %q", got)
	}
	got = loadProblems(t, "workload: {name: w}\n"+validStacks)
	if len(got) != 1 || !strings.HasPrefix(got[0], `1:11: the custom workload has no cases`) {
		t.Errorf("got %q", got)
	}
}
