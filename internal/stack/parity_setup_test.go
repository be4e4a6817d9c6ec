package stack

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// TestParitySetupOnEveryWire: a workload whose setup step captures a user
// id (an HTTP request for the JSON stacks, a gRPC call for the gRPC one)
// and whose templated case asks for that user passes the parity gate on
// a JSON stack over TLS (h2 by ALPN), one over h2c and a gRPC stack over
// TLS (server reflection): each stack's steps went over its own wire,
// and the checked case carries the captured id.
func TestParitySetupOnEveryWire(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two reference servers and starts PostgreSQL")
	}
	root, bin := buildWireApps(t)
	file := filepath.Join(t.TempDir(), "stackbench.yaml")
	json := "    dir: " + filepath.Join(root, "apps/nethttp-pgx") + "\n    start: " + filepath.Join(bin, "nethttp-pgx") + "\n    env: {SAAS_WORKLOAD: saas-slice}\n"
	os.WriteFile(file, []byte(`workload:
  name: saas-setup
  setup:
    - name: probe
      path: /users/${env:PROBE_ID}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${env:PROBE_ID}}'}
      capture: {uid: body.id, name: body.name}
  cases:
    - name: user
      path: /users/${uid}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${uid}}'}
      database: true
stacks:
  - name: json-h2
`+json+`    protocol: h2
  - name: json-h2c
`+json+`    protocol: h2c
  - name: grpc-tls
    dir: `+filepath.Join(root, "apps/grpc-pgx")+`
    start: `+filepath.Join(bin, "grpc-pgx")+`
    env: {SAAS_WORKLOAD: saas-slice}
    protocol: grpc
    tls: on
    proto: reflect
    health: saas.Users/Health
`), 0o644)
	f, err := plan.LoadEnv(file, func(k string) string { return map[string]string{"PROBE_ID": "4242"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	db := &Database{AdminURL: pgtest.Cluster(t).AdminURL(), template: pgfix.TemplateDatabase}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	results, err := Parity(ctx, f.Stacks, ParityOptions{Workload: f.Workload, JWTSecret: f.JWTSecret, Database: db, LogDir: t.TempDir(),
		Progress: func(s string) { t.Log(s) }, Scenario: f.Scenario})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.OK() || len(r.Checks) == 0 {
			t.Fatalf("%s: %d/%d checks passed, error %q, checks %+v", r.Stack, r.Passed(), len(r.Checks), r.Error, r.Checks)
		}
		// The user checked is the one the step captured.
		t.Logf("%s: sent %s", r.Stack, r.Checks[0].Sent)
		if c := r.Checks[0]; !bytes.Contains(c.Body, []byte(`"id":4242`)) {
			t.Errorf("%s: the user case answered %s, want user 4242 (sent %s)", r.Stack, c.Body, c.Sent)
		}
		// The ${env:PROBE_ID} value is a secret: not quoted by a
		// finding (the captures, an id and a name, are data).
		if len(r.Secrets) == 0 {
			t.Errorf("%s: no secrets kept from ${env:…}", r.Stack)
		}
	}
	if rep := workload.NewReport(f.Workload.Name, results); !rep.OK() || len(rep.Warnings) != 0 {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Fatalf("the stacks disagree:\n%s", b.String())
	}
}
