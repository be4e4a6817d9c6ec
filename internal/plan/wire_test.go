package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const wireProto = `syntax = "proto3";
package saas;
service Users {
  rpc Health(Empty) returns (Empty);
  rpc GetUser(GetUserRequest) returns (User);
}
message Empty {}
message GetUserRequest { int32 id = 1; }
message User { int32 id = 1; string name = 2; }
`

// wireFile is a workload with an HTTP request and a gRPC request per case,
// a JSON stack over HTTP/1.1, one over h2c and a gRPC stack over TLS.
const wireFile = `workload:
  name: wire
  cases:
    - name: user
      path: /users/${rand:1..50000}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${rand:1..50000}}'}
    - name: fixed
      path: /users/42
      grpc: {method: saas.Users/GetUser, message: '{"id": 42}'}
stacks:
  - {name: json, dir: apps/a, start: ./s}
  - {name: json-h2c, dir: apps/a, start: ./s, protocol: h2c, streams: 10}
  - name: grpc-tls
    dir: apps/b
    start: ./s
    protocol: grpc
    tls: on
    proto: saas.proto
    health: saas.Users/Health
`

func writeWire(t *testing.T, content string) string {
	t.Helper()
	path := writeConfig(t, content)
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "apps/b/saas.proto"), []byte(wireProto), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWireKeys(t *testing.T) {
	f, err := LoadEnv(writeWire(t, wireFile), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := []Wire{{}, {Protocol: WireH2C, Streams: 10}, {Protocol: WireGRPC, TLS: true, Proto: "saas.proto"}}
	for i, s := range f.Stacks {
		if s.Wire != want[i] {
			t.Errorf("stack %s: wire %+v, want %+v", s.Name, s.Wire, want[i])
		}
	}
	g := f.Stacks[2]
	if g.Health != "/saas.Users/Health" || !strings.HasSuffix(g.ProtoFile(), "apps/b/saas.proto") {
		t.Errorf("grpc stack: health %q, proto file %q", g.Health, g.ProtoFile())
	}
	user, _ := f.Workload.Case("user")
	if user.GRPC == nil || user.GRPC.Method != "saas.Users/GetUser" || !user.GRPCTemplated || !user.Templated {
		t.Fatalf("case user: %+v", user)
	}
	fixed, _ := f.Workload.Case("fixed")
	if fixed.GRPCTemplated || fixed.GRPC.Message != `{"id": 42}` {
		t.Errorf("case fixed: %+v", fixed)
	}
	// The HTTP path and the gRPC message draw the same numbers.
	paths, err := f.Scenario.Variants(user, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := f.Scenario.CallVariants(user, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, c := range calls {
		msgs = append(msgs, c.Message)
	}
	if len(paths) != len(msgs) || len(msgs) < 2 {
		t.Fatalf("%d paths, %d messages", len(paths), len(msgs))
	}
	for k := range 3 {
		id := strings.TrimPrefix(paths[k].Path, "/users/")
		if msgs[k] != `{"id": `+id+`}` {
			t.Errorf("variant %d: path %s, message %s: not the same user", k, paths[k].Path, msgs[k])
		}
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	// The wire is in the fingerprint.
	f2, err := LoadEnv(writeWire(t, strings.Replace(wireFile, "streams: 10", "streams: 20", 1)), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := f2.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Fingerprint == p2.Fingerprint {
		t.Error("streams changed and the fingerprint did not")
	}
}

func TestWireProblems(t *testing.T) {
	base := "workload:\n  name: wire\n  cases:\n    - {name: user, path: /users/1, grpc: {method: saas.Users/GetUser, message: '{\"id\": 1}'}}\nstacks:\n"
	tests := []struct {
		name, stacks string
		want         []string
	}{
		{"unknown protocol", "  - {name: a, dir: apps/a, start: ./s, protocol: http3}\n",
			[]string{`6:50: protocol "http3" is not known`}},
		{"tls not a switch", "  - {name: a, dir: apps/a, start: ./s, tls: maybe}\n",
			[]string{`6:45: tls must be on or off`}},
		{"h2 without tls", "  - {name: a, dir: apps/a, start: ./s, protocol: h2, tls: off}\n",
			[]string{`6:59: stack "a" has protocol: h2, HTTP/2 over TLS, and tls: off`}},
		{"streams on http1", "  - {name: a, dir: apps/a, start: ./s, streams: 8}\n",
			[]string{`6:49: stack "a" has streams: 8, and HTTP/1.1 carries one request at a time`}},
		{"grpc without proto or health", "  - {name: a, dir: apps/a, start: ./s, protocol: grpc}\n",
			[]string{`6:5: stack "a" speaks grpc and has no proto:`, `6:5: stack "a" speaks grpc and has no health:`}},
		{"proto on json stack", "  - {name: a, dir: apps/a, start: ./s, proto: x.proto}\n",
			[]string{`6:47: stack "a" has proto: and does not speak gRPC`}},
		{"proto missing", "  - {name: a, dir: apps/a, start: ./s, protocol: grpc, proto: nope.proto, health: saas.Users/Health}\n",
			[]string{`6:63: stack "a": proto nope.proto:`}},
		{"health not a method", "  - {name: a, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: /health}\n",
			[]string{`6:83: stack "a": health "/health" is not a gRPC method`}},
		{"pprof on grpc", "  - {name: a, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health, pprof: /debug/pprof}\n",
			[]string{`stack "a" has pprof: and speaks grpc; the profiling phase reads pprof: as HTTP requests on the stack's port`}},
		{"tls env", "  - {name: a, dir: apps/a, start: ./s, tls: on, env: {TLS_CERT_FILE: x}}\n",
			[]string{`6:54: TLS_CERT_FILE is set by the harness for a stack with tls: on`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeWire(t, base+tc.stacks)
			_, err := LoadEnv(path, noEnv)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("want problems, got %v", err)
			}
			var got []string
			for _, p := range ce.Problems {
				got = append(got, strings.TrimPrefix(p.String(), p.File+":"))
			}
			matchProblems(t, got, tc.want)
		})
	}
}

func TestWireCaseProblems(t *testing.T) {
	// Against the stack's descriptors, once the workload is valid.
	got := loadProblemsWire(t, `workload:
  name: wire
  cases:
    - name: user
      path: /users/1
      grpc: {method: saas.Users/GetUsr, message: '{"id": 1}'}
    - name: bad
      grpc: {method: saas.Users/GetUser, message: '{"idd": 1}'}
    - name: badtpl
      grpc: {method: saas.Users/GetUser, message: '{"id": "${rand:1..3}x"}'}
stacks:
  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}
`)
	matchProblems(t, got, []string{
		`service saas.Users has no method "GetUsr" (the descriptors of stack g)`,
		`8:51: case bad: grpc message: the message is not a saas.GetUserRequest`,
		`10:51: case badtpl: grpc message, variant 1 ({"id": "`,
	})
	// In the case itself.
	got = loadProblemsWire(t, `workload:
  name: wire
  cases:
    - name: form
      grpc: {method: GetUser}
    - name: tpl
      grpc: {method: saas.Users/GetUser, message: '{"id": ${rand:1..}}'}
stacks:
  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}
`)
	matchProblems(t, got, []string{
		`5:22: case form: grpc method "GetUser" is not in the form package.Service/Method`,
		`7:59: case tpl: grpc message: ${rand:1..} is not a range`,
	})
}

func loadProblemsWire(t *testing.T, content string) []string {
	t.Helper()
	_, err := LoadEnv(writeWire(t, content), noEnv)
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want problems, got %v", err)
	}
	var out []string
	for _, p := range ce.Problems {
		out = append(out, strings.TrimPrefix(p.String(), p.File+":"))
	}
	return out
}

// TestWireCasesPerStack: a gRPC stack needs each selected case's gRPC
// request, a JSON stack its path; leaving the case or the stack out of
// the selection resolves.
func TestWireCasesPerStack(t *testing.T) {
	content := `workload:
  name: wire
  cases:
    - {name: health, path: /health}
    - {name: only-grpc, grpc: {method: saas.Users/GetUser}}
    - {name: both, path: /users/1, grpc: {method: saas.Users/GetUser, message: '{"id": 1}'}}
    - {name: missing, path: /users/0, expect: [404], grpc: {method: saas.Users/GetUser, message: '{"id": 0}'}}
stacks:
  - {name: json, dir: apps/a, start: ./s}
  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}
`
	f, err := LoadEnv(writeWire(t, content), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Resolve(Overrides{})
	var ce *ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 3 {
		t.Fatalf("want three problems, got %v", err)
	}
	for i, want := range []string{
		`stackbench.yaml:9: stack "json" speaks http1 and case "only-grpc" has only a gRPC request`,
		`stackbench.yaml:10: stack "g" speaks grpc and case "health" has no gRPC request; add grpc: {method: saas.Users/GetUser`,
		`stackbench.yaml:10: stack "g" speaks grpc and case "missing" expects [404], an error`,
	} {
		if !strings.Contains(ce.Problems[i].String(), want) {
			t.Errorf("problem %d: %s\nwant %s", i, ce.Problems[i], want)
		}
	}
	p, err := f.Resolve(Overrides{Cases: []string{"both"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Protocol.Cases, []string{"both"}) {
		t.Errorf("cases %v", p.Protocol.Cases)
	}
	if _, err := f.Resolve(Overrides{Stacks: []string{"g"}, Cases: []string{"only-grpc", "both"}}); err != nil {
		t.Error(err)
	}
}

func TestWireDescribe(t *testing.T) {
	for _, c := range []struct {
		w    Wire
		want string
	}{
		{Wire{}, "HTTP/1.1"},
		{Wire{TLS: true}, "HTTP/1.1 over TLS"},
		{Wire{Protocol: WireH2C}, "h2c, 1 stream a connection"},
		{Wire{Protocol: WireGRPC, TLS: true, Streams: 100}, "gRPC over TLS, 100 streams a connection"},
	} {
		if got := c.w.Describe(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}

// setupWireFile is a workload whose setup step is written for both wires
// (an HTTP request and a gRPC call capturing the same name), run by a
// JSON stack over HTTP/1.1, over h2c, over h2 (TLS) and a gRPC stack
// over TLS.
const setupWireFile = `workload:
  name: wire
  setup:
    - name: probe
      path: /users/42
      grpc: {method: saas.Users/GetUser, message: '{"id": ${env:SEED_ID}}'}
      capture: {uid: body.id}
  cases:
    - name: user
      path: /users/${uid}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${uid}}'}
stacks:
  - {name: json, dir: apps/a, start: ./s}
  - {name: json-h2c, dir: apps/a, start: ./s, protocol: h2c}
  - {name: json-h2, dir: apps/a, start: ./s, protocol: h2}
  - {name: grpc-tls, dir: apps/b, start: ./s, protocol: grpc, tls: on, proto: saas.proto, health: saas.Users/Health}
`

// TestSetupStepsOnEveryWire: a workload with setup steps is accepted with
// stacks over TLS, HTTP/2 and gRPC; a step's gRPC call is read with its
// templated message, and a case's message may use what a step captured.
func TestSetupStepsOnEveryWire(t *testing.T) {
	f, err := LoadEnv(writeWire(t, setupWireFile), func(string) string { return "42" })
	if err != nil {
		t.Fatal(err)
	}
	steps := f.Scenario.Steps
	if len(steps) != 1 || !steps[0].HasHTTP() || steps[0].GRPC == nil {
		t.Fatalf("steps %+v, want one with an HTTP request and a gRPC call", steps)
	}
	if g := steps[0].GRPC; g.Method != "saas.Users/GetUser" || g.Message.Source != `{"id": ${env:SEED_ID}}` || g.Message.Fixed() {
		t.Errorf("the step's gRPC call: %+v", g)
	}
	if f.Scenario.Env["SEED_ID"] != "42" {
		t.Errorf("the step message's ${env:SEED_ID} was not resolved: %v", f.Scenario.Env)
	}
	if _, ok := f.Scenario.Messages["user"]; !ok || !f.Workload.Cases[0].GRPCTemplated {
		t.Errorf("the case's message using ${uid} is not templated: %+v", f.Scenario.Messages)
	}
	// A gRPC-only step is fine for a gRPC stack alone.
	only := strings.Replace(setupWireFile, "      path: /users/42\n", "", 1)
	only = only[:strings.Index(only, "  - {name: json,")] + "  - {name: grpc, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}\n"
	if _, err := LoadEnv(writeWire(t, only), func(string) string { return "42" }); err != nil {
		t.Errorf("a gRPC-only step with a gRPC stack: %v", err)
	}
}

// TestSetupStepWireProblems: a step a stack cannot be sent is refused
// saying how to write it, and a step's gRPC call is checked against the
// gRPC stack's descriptors at its line and column.
func TestSetupStepWireProblems(t *testing.T) {
	tests := []struct {
		name, steps, stacks string
		want                []string
	}{
		{"HTTP step to a gRPC stack",
			"    - {name: login, method: POST, path: /login, capture: {token: body.token}}\n",
			"  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}\n",
			[]string{`stack "g" speaks grpc and setup step login is an HTTP request; write the step as a gRPC call too, e.g. grpc: {method: saas.Users/GetUser`}},
		{"gRPC-only step to an HTTP stack over TLS",
			"    - {name: login, grpc: {method: saas.Users/GetUser}, capture: {token: body.name}}\n",
			"  - {name: a, dir: apps/a, start: ./s, protocol: h2}\n",
			[]string{`stack "a" speaks h2 and setup step login is only a gRPC call; add the step's HTTP request (path:`}},
		{"unknown method",
			"    - {name: login, grpc: {method: saas.Users/Login}}\n",
			"  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}\n",
			[]string{`has no method "Login" (the descriptors of stack g); name a method of the service`}},
		{"message that does not encode",
			"    - {name: login, grpc: {method: saas.Users/GetUser, message: '{\"idd\": 1}'}}\n",
			"  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}\n",
			[]string{`4:65: setup step login: grpc message: the message is not a saas.GetUserRequest`}},
		{"expect on a gRPC-only step",
			"    - {name: login, grpc: {method: saas.Users/GetUser}, expect: [200]}\n",
			"  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}\n",
			[]string{`4:65: setup step login has expect: and only a gRPC call, which succeeds on grpc-status 0 alone`}},
		{"neither path nor grpc",
			"    - {name: login, capture: {token: body.token}}\n",
			"  - {name: a, dir: apps/a, start: ./s}\n",
			[]string{`4:7: this setup step has no path; add path: the path and query to request, e.g. path: /login (or grpc: for a gRPC stack)`}},
		{"bad template in a step's message",
			"    - {name: login, grpc: {method: saas.Users/GetUser, message: '{\"id\": ${nope}}'}}\n",
			"  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}\n",
			[]string{`4:73: setup step login: grpc message: ${nope} is not captured by a setup step that runs before it`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := loadProblemsWire(t, "workload:\n  name: wire\n  setup:\n"+tc.steps+
				"  cases:\n    - {name: user, path: /users/1, grpc: {method: saas.Users/GetUser, message: '{\"id\": 1}'}}\nstacks:\n"+tc.stacks)
			matchProblems(t, got, tc.want)
			// The method's problem is at the step's method (its message
			// quotes the descriptors' file in the middle).
			if tc.name == "unknown method" && !strings.HasPrefix(got[0], "4:36: setup step login: ") {
				t.Errorf("placed at %s, want 4:36 (the step's method)", got[0])
			}
		})
	}
}

// pprof: is read over the stack's own wire, so a TLS or h2c stack may
// have one.
func TestPprofOnEveryHTTPWire(t *testing.T) {
	path := writeWire(t, `workload: saas-slice
stacks:
  - {name: a, dir: apps/a, start: ./s, tls: on, pprof: /debug/pprof}
  - {name: b, dir: apps/a, start: ./s, protocol: h2c, pprof: /debug/pprof}
  - {name: c, dir: apps/a, start: ./s, protocol: h2, pprof: /debug/pprof}
`)
	if _, err := LoadEnv(path, noEnv); err != nil {
		t.Errorf("pprof: on TLS, h2c and h2 stacks: %v", err)
	}
}

// TestGRPCMetadata: a case's grpc: metadata is read in order, a templated
// value makes the call templated (its variants carry it, a captured
// value included), and a name the engine sets, a value that is not one
// line, a name given twice or a reference that cannot resolve is refused
// at its line and column.
func TestGRPCMetadata(t *testing.T) {
	f, err := LoadEnv(writeWire(t, `workload:
  name: wire
  setup:
    - {name: login, grpc: {method: saas.Users/GetUser, message: '{"id": 1}'}, capture: {token: body.name}}
  cases:
    - name: fixed
      grpc: {method: saas.Users/GetUser, message: '{"id": 1}', metadata: {authorization: Bearer abc, x-tenant: t1}}
    - name: captured
      grpc:
        method: saas.Users/GetUser
        metadata: {Authorization: 'Bearer ${token}'}
stacks:
  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	fixed, _ := f.Workload.Case("fixed")
	captured, _ := f.Workload.Case("captured")
	if fixed.GRPCTemplated || fmt.Sprint(fixed.GRPC.Metadata) != "[{authorization Bearer abc} {x-tenant t1}]" {
		t.Errorf("fixed: templated %v, metadata %v", fixed.GRPCTemplated, fixed.GRPC.Metadata)
	}
	if !captured.GRPCTemplated {
		t.Errorf("captured: not templated")
	}
	calls, err := f.Scenario.CallVariants(captured, map[string][]string{"token": {"t-1", "t-2"}})
	if err != nil || len(calls) != 2 || fmt.Sprint(calls[1].Metadata) != "[{Authorization Bearer t-2}]" || calls[1].Message != "{}" {
		t.Errorf("captured's variants %+v, %v", calls, err)
	}
	got := loadProblemsWire(t, `workload:
  name: wire
  cases:
    - name: a
      grpc: {method: saas.Users/GetUser, metadata: {content-type: application/json}}
    - name: b
      grpc: {method: saas.Users/GetUser, metadata: {grpc-timeout: 1S, ':path': /x, te: trailers, connection: close}}
    - name: c
      grpc: {method: saas.Users/GetUser, metadata: [authorization]}
    - name: d
      grpc: {method: saas.Users/GetUser, metadata: {x-a: "1\n2", x-b: 1, X-B: 2}}
    - name: e
      grpc: {method: saas.Users/GetUser, metadata: {authorization: 'Bearer ${nope}'}}
stacks:
  - {name: g, dir: apps/b, start: ./s, protocol: grpc, proto: saas.proto, health: saas.Users/Health}
`)
	matchProblems(t, got, []string{
		`5:53: case a: grpc metadata "content-type" is set by the engine on every gRPC call`,
		`7:53: case b: grpc metadata "grpc-timeout": names starting with grpc- are reserved by gRPC`,
		`7:71: case b: grpc metadata ":path" is a pseudo-header`,
		`7:84: case b: grpc metadata "te" is set by the engine`,
		`7:98: case b: grpc metadata "connection" is a connection-specific header`,
		`9:52: case c: grpc metadata must be a mapping of names to values, not a list`,
		`11:58: case d: grpc metadata x-a must be a single line of text`,
		`11:74: case d: grpc metadata X-B is already given at line 11`,
		`13:76: case e: grpc metadata authorization: ${nope} is not captured by a setup step that runs before it`,
	})
}
