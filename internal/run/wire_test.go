package run

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
)

// TestWindowsDriveEachStackOverItsWire: a run of the SaaS slice on five
// wires — JSON over HTTP/1.1, over h2c with streams and over h2 (TLS),
// gRPC in cleartext and gRPC over TLS with the run's throwaway
// certificate —
// passes parity and drives each stack's windows over its own wire, as the
// journal's load records say (protocol, TLS, streams, method), every
// request a success and a templated case sent as its pool of variants.
func TestWindowsDriveEachStackOverItsWire(t *testing.T) {
	root, _ := filepath.Abs("../..")
	grpcBin := filepath.Join(t.TempDir(), "grpc-pgx")
	cmd := exec.Command("go", "build", "-o", grpcBin, "./apps/grpc-pgx")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build grpc-pgx: %v\n%s", err, out)
	}
	grpcDir := filepath.Join(root, "apps", "grpc-pgx")
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
  warmup: 200ms
  window: 600ms
  rounds: 1
  boot_starts: 1
  gate: off
stacks:
  - {name: json, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}}
  - {name: json-h2c, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2c, streams: 2}
  - {name: json-h2, dir: `+refServerDir+`, start: `+refServerBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2}
  - {name: grpc, dir: `+grpcDir+`, start: `+grpcBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: grpc, proto: saaspb/saas.proto, health: saas.Users/Health}
  - {name: grpc-tls, dir: `+grpcDir+`, start: `+grpcBin+`, env: {SAAS_WORKLOAD: saas-slice}, protocol: grpc, tls: on, proto: reflect, health: saas.Users/Health}
`)
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := finals(t, dir)
	// The boot suite measures the stacks on HTTP/1.1 and HTTP/2 (h2c, and
	// h2 over TLS with the run's certificate) and says why the gRPC ones
	// have no cold starts.
	for _, b := range res.Boot {
		grpc := strings.HasPrefix(b.Stack, "grpc")
		switch {
		case !grpc && (len(b.Starts) != 1 || b.Error != "" || !b.Starts[0].FirstOK):
			t.Errorf("boot of %s: %+v", b.Stack, b)
		case grpc && (len(b.Starts) != 0 || !strings.Contains(b.Error, "the boot suite's first request is an HTTP request, not a gRPC call")):
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
