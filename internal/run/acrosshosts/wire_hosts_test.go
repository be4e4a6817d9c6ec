package acrosshosts

import (
	"context"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// TestEveryWireAcrossHosts: the server on app1, the database on db1 and
// two generators, with a JSON stack over TLS (h2 by ALPN), one over h2c
// with two streams a connection, a gRPC stack in cleartext (its .proto
// here) and one over TLS (its descriptors by server reflection of the
// process on app1). The setup steps go from here to each process on app1
// over its wire (TLS verified at app1's address), the templated case
// goes to both generators as the pool of variants they captured (the gRPC
// stacks' as their pool of messages and of metadata: these stacks
// answer UNAUTHENTICATED to a call without "authorization: Bearer
// s3cret", which the setup step and the case carry), and the generators,
// sent the run's CA and the descriptors, drive every window over the stack's wire with
// every request a success. The parity gate and the cold starts, here,
// pass on the same certificate.
func TestEveryWireAcrossHosts(t *testing.T) {
	grpcDir, grpcBin := bins.GRPCServerDir, bins.GRPCServer
	n := onHosts(t, []string{"app1", "db1", "load1", "load2"}, "json-h2", "json-h2c", "grpc", "grpc-tls")
	jsonDir, grpcCopy := runtest.DirForHosts(t, bins.RefServerDir), runtest.DirForHosts(t, grpcDir)
	src := runtest.HostsSection(n, "app1", "db1", "load1", "load2") +
		"roles:\n  server: app1\n  database: db1\n  generators: [load1, load2]\nprofile: quick\n" + `workload:
  name: saas-wire-hosts
  setup:
    - name: users
      repeat: 3
      path: /users/${i}7
      grpc: {method: saas.Users/GetUser, message: '{"id": ${i}7}', metadata: {authorization: Bearer s3cret}}
      capture: {uids: body.id}
  cases:
    - name: health
      path: /health
      grpc: {method: saas.Users/Health}
    - name: user
      path: /users/${uids}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${uids}}', metadata: {authorization: Bearer s3cret, x-uid: '${uids}'}}
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
  - {name: json-h2, dir: ` + jsonDir + `, start: ` + bins.RefServer + `, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2}
  - {name: json-h2c, dir: ` + jsonDir + `, start: ` + bins.RefServer + `, env: {SAAS_WORKLOAD: saas-slice}, protocol: h2c, streams: 2}
  - {name: grpc, dir: ` + grpcCopy + `, start: ` + grpcBin + `, env: {SAAS_WORKLOAD: saas-slice, REQUIRE_TOKEN: s3cret}, protocol: grpc, proto: saaspb/saas.proto, health: saas.Users/Health}
  - {name: grpc-tls, dir: ` + grpcCopy + `, start: ` + grpcBin + `, env: {SAAS_WORKLOAD: saas-slice, REQUIRE_TOKEN: s3cret}, protocol: grpc, tls: on, proto: reflect, health: saas.Users/Health}
`
	opt := hostsRun(t, n, writeFile(t, src))
	if err := run.RemoteSupported(opt.File, opt.Plan); err != nil {
		t.Fatalf("RemoteSupported: %v; every wire runs across hosts", err)
	}
	if _, err := run.Run(context.Background(), opt); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, opt.Dir)
	if len(res.Parity) != 1 || !res.Parity[0].Passed {
		t.Errorf("parity %+v", res.Parity)
	}
	for _, b := range res.Boot {
		if len(b.Starts) != 1 || b.Error != "" || !b.Starts[0].FirstOK {
			t.Errorf("boot of %s: %+v", b.Stack, b)
		}
	}
	if len(res.Boot) != 4 {
		t.Errorf("%d boot records, want 4", len(res.Boot))
	}
	if len(byKey) != 8 {
		t.Fatalf("%d final windows, want 8", len(byKey))
	}
	want := map[string]struct {
		protocol string
		tls      bool
		streams  int
	}{"json-h2": {"h2", true, 1}, "json-h2c": {"h2c", false, 2}, "grpc": {"grpc", false, 1}, "grpc-tls": {"grpc", true, 1}}
	for key, w := range byKey {
		l := w.Load
		if l == nil || w.ServerHost != "app1" || len(w.Generators) != 2 {
			t.Errorf("%s: load %v on %q from %d generators; want app1 and 2 (reasons %v)", key, l != nil, w.ServerHost, len(w.Generators), w.Reasons)
			continue
		}
		if l.Successes == 0 || l.Attempts != l.Successes {
			t.Errorf("%s: %d successes of %d attempts (%v); want every request a success", key, l.Successes, l.Attempts, l.Errors)
		}
		for _, g := range w.Generators {
			if g.Successes == 0 {
				t.Errorf("%s: the generator on %s had no success", key, g.Host)
			}
		}
		ww := want[w.Stack]
		if l.Protocol != ww.protocol || (l.TLS != nil) != ww.tls {
			t.Errorf("%s: protocol %q, TLS %+v; want %s, TLS %v", key, l.Protocol, l.TLS, ww.protocol, ww.tls)
		}
		if ww.tls && !strings.HasPrefix(l.TLS.Version, "TLS 1.") {
			t.Errorf("%s: TLS %+v", key, l.TLS)
		}
		if ww.protocol != "http1" && (l.H2 == nil || l.H2.StreamsPerConnection != ww.streams) {
			t.Errorf("%s: HTTP/2 %+v, want %d streams a connection", key, l.H2, ww.streams)
		}
		grpcMethod := ""
		if ww.protocol == "grpc" {
			grpcMethod = map[string]string{"health": "saas.Users/Health", "user": "saas.Users/GetUser"}[w.Case]
		}
		if l.GRPCMethod != grpcMethod {
			t.Errorf("%s: gRPC method %q, want %q", key, l.GRPCMethod, grpcMethod)
		}
		// The templated case is sent as the pool of the 3 users the
		// setup steps captured from app1.
		if w.Case == "user" && l.PoolSize != 3 {
			t.Errorf("%s: a pool of %d; want the 3 captured users", key, l.PoolSize)
		}
	}
}
