package plan

import (
	"strings"
	"testing"
)

func TestStackBase(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, `workload: {name: blog, health: /ping, cases: [{name: hello, path: /hello}]}
stacks:
  - name: a
    dir: apps/a
    start: ./server
  - name: b
    dir: apps/b
    base: /api/
    start: ./server
  - name: c
    dir: apps/b
    base: /
    health: /healthz
    start: ./server
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ base, health, url string }{
		{"", "/ping", "http://127.0.0.1:9/"},
		{"/api", "/api/ping", "http://127.0.0.1:9/api/"},
		{"", "/healthz", "http://127.0.0.1:9/"},
	} {
		s := f.Stacks[i]
		if s.Base != want.base || s.Health != want.health || s.BaseURL("127.0.0.1:9")+"/" != want.url {
			t.Errorf("stack %s: base %q health %q url %q, want %+v", s.Name, s.Base, s.Health, s.BaseURL("127.0.0.1:9"), want)
		}
	}
}

func TestStackBaseProblems(t *testing.T) {
	got := strings.Join(loadProblems(t, `workload: saas-slice
stacks:
  - name: a
    dir: apps/a
    start: ./server
    base: api
  - name: b
    dir: apps/b
    start: ./server
    base: /api?v=1
  - name: c
    dir: apps/b
    start: ./server
    protocol: grpc
    proto: x.proto
    health: a.B/C
    base: /api
`), "\n")
	for _, want := range []string{
		`6:11: base "api" must start with '/'`,
		`10:11: base "/api?v=1" must be a plain path`,
		`base applies to HTTP paths, and this stack speaks grpc`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
