package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// TestWindowsDriveEachStackOverItsWire: a run of the SaaS slice on five
// wires — JSON over HTTP/1.1, over h2c with streams and over h2 (TLS),
// gRPC in cleartext and gRPC over TLS with the run's throwaway
// certificate —
// passes parity and drives each stack's windows over its own wire, as the
// journal's load records say (protocol, TLS, streams, method), every
// request a success and a templated case sent as its pool of variants.
func TestWindowsDriveEachStackOverItsWire(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, `database: `+admin+`
profile: quick
workload:
  name: saas-wire
  cases:
    - name: health
      path: /health
      grpc: {method: saas.Users/Health}
    - name: user
      path: /users/${rand:1..50000}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${rand:1..50000}}'}
      database: true
protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  boot_starts: 1
  gate: off
stacks:
  - {name: json, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}}
  - {name: json-h2c, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2c, streams: 2}
  - {name: json-h2, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2}
  - {name: grpc, dir: `+grpcServerDir+`, start: `+grpcServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: grpc, proto: saaspb/saas.proto, health: saas.Users/Health}
  - {name: grpc-tls, dir: `+grpcServerDir+`, start: `+grpcServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: grpc, tls: on, proto: reflect, health: saas.Users/Health}
`)
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	// The run's throwaway certificate: its key gone once the run ended,
	// the certificates private.
	tlsDir := filepath.Join(logsDir(dir), "tls")
	if _, err := os.Lstat(filepath.Join(tlsDir, "key.pem")); err == nil {
		t.Error("the throwaway certificate's key.pem outlived the run")
	}
	for _, f := range []string{"ca.pem", "cert.pem"} {
		if st, err := os.Stat(filepath.Join(tlsDir, f)); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	// The boot suite measures every stack over its wire: HTTP/1.1, h2c,
	// h2 over TLS with the run's certificate, and the gRPC stacks with the
	// first case's gRPC call (its message's ${rand} expanded).
	for _, b := range res.Boot {
		if len(b.Starts) != 1 || b.Error != "" || !b.Starts[0].FirstOK || b.Starts[0].FirstDBRequestSeconds <= 0 {
			t.Errorf("boot of %s: %+v", b.Stack, b)
		}
	}
	if len(res.Boot) != 5 {
		t.Errorf("%d boot records, want 5", len(res.Boot))
	}
	if out.Measured != 10 || len(byKey) != 10 {
		t.Fatalf("measured %d, final records %d, want 10", out.Measured, len(byKey))
	}
	want := map[string]struct {
		protocol string
		tls      bool
		streams  int
	}{"json": {"http1", false, 0}, "json-h2c": {"h2c", false, 2}, "json-h2": {"h2", true, 1}, "grpc": {"grpc", false, 1}, "grpc-tls": {"grpc", true, 1}}
	for key, w := range byKey {
		l := w.Load
		if l == nil || l.Successes == 0 || l.Attempts != l.Successes {
			t.Errorf("%s: %+v; want every request a success", key, l)
			continue
		}
		ww := want[w.Stack]
		if l.Protocol != ww.protocol || (l.TLS != nil) != ww.tls {
			t.Errorf("%s: protocol %q, TLS %+v; want %s, TLS %v", key, l.Protocol, l.TLS, ww.protocol, ww.tls)
		}
		if ww.streams > 0 && (l.H2 == nil || l.H2.StreamsPerConnection != ww.streams) {
			t.Errorf("%s: HTTP/2 %+v, want %d streams a connection", key, l.H2, ww.streams)
		}
		grpcMethod := ""
		if ww.protocol == "grpc" {
			grpcMethod = map[string]string{"health": "saas.Users/Health", "user": "saas.Users/GetUser"}[w.Case]
		}
		if l.GRPCMethod != grpcMethod {
			t.Errorf("%s: gRPC method %q, want %q", key, l.GRPCMethod, grpcMethod)
		}
		if w.Case == "user" && l.PoolSize < 1000 {
			t.Errorf("%s: a pool of %d requests; want the templated case's 1000 variants", key, l.PoolSize)
		}
		if ww.tls && !strings.HasPrefix(l.TLS.Version, "TLS 1.") {
			t.Errorf("%s: TLS %+v", key, l.TLS)
		}
	}
}

// TestSetupStepsGoOverEachStacksWire: a workload whose repeated setup step
// captures a list of user ids — an HTTP request for the JSON stacks, a
// gRPC call for the gRPC one — runs on a JSON stack over TLS (h2 by
// ALPN), one over h2c and a gRPC stack over TLS: parity passes, each
// stack's templated case is sent as the pool of variants its own steps
// captured (the gRPC stack's as its pool of messages), and every request
// of every window is a success.
func TestSetupStepsGoOverEachStacksWire(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, `database: `+admin+`
profile: quick
workload:
  name: saas-setup
  setup:
    - name: users
      repeat: 3
      path: /users/${i}7
      grpc: {method: saas.Users/GetUser, message: '{"id": ${i}7}'}
      capture: {uids: body.id}
  cases:
    - name: user
      path: /users/${uids}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${uids}}'}
      database: true
`+quickWireProtocol+`stacks:
  - {name: json-h2, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2}
  - {name: json-h2c, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2c, streams: 2}
  - {name: grpc-tls, dir: `+grpcServerDir+`, start: `+grpcServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: grpc, tls: on, proto: saaspb/saas.proto, health: saas.Users/Health}
`)
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "results")
	pools := t.TempDir()
	var log strings.Builder
	if _, err := Run(context.Background(), Options{File: f, Plan: p, Dir: dir, Stackbench: stackbenchBin, Log: &log, ToolVersion: "test", PoolDir: pools}); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.Parity) != 1 || !res.Parity[0].Passed {
		t.Fatalf("parity %+v", res.Parity)
	}
	if len(byKey) != 3 {
		t.Fatalf("%d windows, want 3", len(byKey))
	}
	for key, w := range byKey {
		l := w.Load
		if l == nil || l.Successes == 0 || l.Attempts != l.Successes || l.PoolSize != 3 {
			t.Errorf("%s: %+v; want every request a success, from a pool of the 3 captured users", key, l)
		}
	}
	for file, want := range map[string][]string{
		filepath.Join(pools, "json-h2", "user.jsonl"):           {`"/users/17"`, `"/users/27"`, `"/users/37"`},
		filepath.Join(pools, "json-h2c", "user.jsonl"):          {`"/users/17"`, `"/users/27"`, `"/users/37"`},
		filepath.Join(pools, "+grpc", "grpc-tls", "user.jsonl"): {`{"id":17}`, `{"id":27}`, `{"id":37}`},
	} {
		b, err := os.ReadFile(file)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if err != nil || len(lines) != len(want) {
			t.Errorf("pool %s: %v, %q", file, err, lines)
			continue
		}
		for i, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("pool %s line %d: %s, want %s", file, i+1, lines[i], w)
			}
		}
	}
}

// TestGRPCMetadataReachesParityAndLoad: a gRPC stack that requires
// request metadata (grpc-pgx with REQUIRE_TOKEN answers UNAUTHENTICATED
// without "authorization: Bearer <token>") passes parity and has every
// call of every window succeed when the cases carry it — one as written
// (sent as -H), one templated (${line:FILE}: sent as the pool's metadata
// file beside its messages) — and fails the parity gate with the
// status UNAUTHENTICATED maps to (401) when a case does not.
func TestGRPCMetadataReachesParityAndLoad(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	admin := pgtest.Cluster(t).AdminURL()
	tokens := filepath.Join(t.TempDir(), "tokens.txt")
	if err := os.WriteFile(tokens, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := func(cases string) string {
		return writeFile(t, `database: `+admin+`
profile: quick
workload:
  name: saas-auth
  cases:
`+cases+quickWireProtocol+`stacks:
  - {name: grpc, dir: `+grpcServerDir+`, start: `+grpcServerBin+`, env: {SAAS_WORKLOAD: saas-slice, REQUIRE_TOKEN: s3cret}, protocol: grpc, proto: saaspb/saas.proto, health: saas.Users/Health}
`)
	}
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFile(t, context.Background(), file(`    - name: user
      grpc: {method: saas.Users/GetUser, message: '{"id": 42}', metadata: {authorization: Bearer s3cret}}
      database: true
    - name: users
      grpc: {method: saas.Users/GetUser, message: '{"id": ${rand:1..50000}}', metadata: {authorization: 'Bearer ${line:`+tokens+`}'}}
      database: true
`), dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.Parity) != 1 || !res.Parity[0].Passed {
		t.Fatalf("parity %+v", res.Parity)
	}
	if out.Measured != 2 || len(byKey) != 2 {
		t.Fatalf("measured %d, final records %d, want 2", out.Measured, len(byKey))
	}
	for key, w := range byKey {
		if l := w.Load; l == nil || l.Successes == 0 || l.Attempts != l.Successes {
			t.Errorf("%s: %+v; want every call a success", key, l)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir+".pools", "+grpc", "users.metadata.jsonl"))
	if lines := strings.Split(strings.TrimSpace(string(md)), "\n"); err != nil || len(lines) != 1000 || lines[999] != `{"authorization":"Bearer s3cret"}` {
		t.Errorf("the metadata pool: %v, %d lines, last %q", err, len(lines), lines[len(lines)-1])
	}

	dir = filepath.Join(t.TempDir(), "results")
	_, err = runFile(t, context.Background(), file(`    - name: user
      grpc: {method: saas.Users/GetUser, message: '{"id": 42}'}
      database: true
`), dir, plan.Overrides{}, false)
	if !errors.Is(err, ErrParity) {
		t.Fatalf("run without the metadata: %v, want ErrParity", err)
	}
	_, res = runtest.Finals(t, dir)
	if len(res.Parity) != 1 || res.Parity[0].Passed || !strings.Contains(strings.Join(res.Parity[0].Failures, "\n"), "user/load-request: status 401, want 200") {
		t.Errorf("parity without the metadata %+v; want the case failed with 401, UNAUTHENTICATED's status", res.Parity)
	}
}

// quickWireProtocol is the protocol: of the wire tests without cold
// starts: one short window per stack and case.
const quickWireProtocol = `protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  boot_starts: 0
  gate: off
`
