package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// wireWorkload is the SaaS slice written once for both wires: each case's
// HTTP request and its gRPC call (saas.Users of apps/grpc-pgx), the user
// drawn at random, the same user on both wires.
const wireWorkload = `workload:
  name: saas-wire
  cases:
    - name: health
      path: /health
      grpc: {method: saas.Users/Health}
    - name: user
      path: /users/${rand:1..50000}
      grpc: {method: saas.Users/GetUser, message: '{"id": ${rand:1..50000}}'}
      database: true
    - name: list
      path: /users?page=7&limit=20
      grpc: {method: saas.Users/ListUsers, message: '{"page": 7, "limit": 20}'}
      database: true
    - name: missing
      path: /users/999999
      grpc: {method: saas.Users/GetUser, message: '{"id": 999999}'}
      expect: [404]
      database: true
    - name: order
      method: POST
      path: /orders
      headers: {Content-Type: application/json}
      body: '{"userId":4242,"amount":19.99,"currency":"USD"}'
      grpc: {method: saas.Users/CreateOrder, message: '{"userId": 4242, "amount": 19.99, "currency": "USD"}'}
      expect: [201]
      inserts: true
      database: true
`

// TestParityAcrossWires: nethttp-pgx (JSON over HTTP/1.1) and grpc-pgx
// (gRPC over TLS, its answers turned into JSON through protojson) pass the
// parity gate together on every case, the gRPC codes standing for the
// HTTP statuses (NOT_FOUND for 404); and a field changed on either wire is
// caught.
func TestParityAcrossWires(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two reference servers and starts PostgreSQL")
	}
	root, bin := buildWireApps(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "stackbench.yaml")
	os.WriteFile(file, []byte(wireWorkload+`stacks:
  - name: json
    dir: `+filepath.Join(root, "apps/nethttp-pgx")+`
    start: `+filepath.Join(bin, "nethttp-pgx")+`
    env: {SAAS_WORKLOAD: saas-slice}
  - name: grpc-tls
    dir: `+filepath.Join(root, "apps/grpc-pgx")+`
    start: `+filepath.Join(bin, "grpc-pgx")+`
    env: {SAAS_WORKLOAD: saas-slice}
    protocol: grpc
    tls: on
    proto: saaspb/saas.proto
    health: saas.Users/Health
`), 0o644)
	f, err := plan.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	db := &Database{AdminURL: pgtest.Cluster(t).AdminURL(), template: pgfix.TemplateDatabase}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logDir := t.TempDir()
	o := ParityOptions{Workload: f.Workload, JWTSecret: f.JWTSecret, Database: db, LogDir: logDir,
		Progress: func(s string) { t.Log(s) }, Scenario: f.Scenario}
	results, err := Parity(ctx, f.Stacks, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.OK() || len(r.Checks) != len(f.Workload.Cases) {
			t.Fatalf("%s: %d/%d checks passed, error %q, checks %+v", r.Stack, r.Passed(), len(r.Checks), r.Error, r.Checks)
		}
	}
	if rep := workload.NewReport(f.Workload.Name, results); !rep.OK() || len(rep.Warnings) != 0 {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Fatalf("the JSON and the gRPC stack disagree:\n%s", b.String())
	}
	grpcUser := results[1].Checks[1]
	if !strings.HasPrefix(grpcUser.Sent, `gRPC saas.Users/GetUser {"id": `) || grpcUser.Status != 200 || grpcUser.ContentType != "application/json" {
		t.Errorf("the gRPC user check: %+v", grpcUser)
	}
	if missing := results[1].Checks[3]; missing.Status != 404 {
		t.Errorf("NOT_FOUND held as %d, want 404", missing.Status)
	}

	// A field changed on either wire is caught: the JSON stack behind a
	// proxy that renames its users, and the gRPC stack (in cleartext)
	// behind one that changes the last byte of GetUser's answer (the
	// user's createdAt).
	jsonStack, grpcStack := f.Stacks[0], f.Stacks[1]
	grpcStack.Wire.TLS = false
	h := Harness{Workload: f.Workload.Name, JWTSecret: f.JWTSecret}
	if h.DatabaseURL, err = db.Fresh(ctx, "stackbench_parity_liars"); err != nil {
		t.Fatal(err)
	}
	liarRun := func(s plan.Stack, proxy func(target *url.URL) http.Handler) workload.StackResult {
		p, err := Start(ctx, s, h, logDir)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop(StopGrace)
		target, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(p.Port()))
		srv := httptest.NewUnstartedServer(proxy(target))
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Start()
		defer srv.Close()
		st, err := SetupTarget(s, "127.0.0.1", p.Port(), logDir)
		if err != nil {
			t.Fatal(err)
		}
		first, err := FirstVariantsOf(ctx, f.Scenario, f.Workload, st)
		if err != nil {
			t.Fatal(err)
		}
		opt := workload.RunOptions{Stack: s.Name + "-liar", Secret: f.JWTSecret, DatabaseURL: h.DatabaseURL, HealthPath: s.Health, Protocol: s.Wire.Protocol,
			Requests: first.Requests, Calls: first.Calls}
		if err := wireOptions(s, st, logDir, &opt); err != nil {
			t.Fatal(err)
		}
		return workload.RunChecks(ctx, f.Workload, srv.URL, opt)
	}
	jsonLiar := liarRun(jsonStack, func(target *url.URL) http.Handler {
		rp := httputil.NewSingleHostReverseProxy(target)
		rp.ModifyResponse = func(resp *http.Response) error {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			b = bytes.Replace(b, []byte(`"name":"`), []byte(`"name":"X`), 1)
			resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			resp.Header.Del("Content-Length")
			return nil
		}
		return rp
	})
	grpcLiar := liarRun(grpcStack, grpcFlipProxy)
	for _, tc := range []struct {
		name string
		pair []workload.StackResult
	}{
		{"a JSON field changed", []workload.StackResult{results[1], jsonLiar}},
		{"a gRPC field changed", []workload.StackResult{results[0], grpcLiar}},
	} {
		if !tc.pair[1].OK() && tc.pair[1].Error != "" {
			t.Fatalf("%s: %s", tc.name, tc.pair[1].Error)
		}
		failures, _ := workload.Compare(tc.pair)
		caught := false
		for _, fl := range failures {
			caught = caught || fl.Check == "user/load-request" && strings.Contains(fl.Problem, "success body differs")
		}
		if !caught {
			js, _ := json.Marshal(failures)
			t.Errorf("%s: not caught on the user case; failures %s", tc.name, js)
		}
	}
}

// grpcFlipProxy forwards gRPC calls to target over h2c and changes the
// last byte of each GetUser answer's message.
func grpcFlipProxy(target *url.URL) http.Handler {
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	client := &http.Client{Transport: tr}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, target.String()+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if r.URL.Path == "/saas.Users/GetUser" && len(out) > 5 {
			out[len(out)-1] ^= 1
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		for k := range resp.Trailer {
			w.Header().Add("Trailer", k)
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(out)
		for k, v := range resp.Trailer {
			w.Header()[k] = v
		}
	})
}

// buildWireApps builds the JSON and the gRPC reference servers
// (apps/nethttp-pgx, apps/grpc-pgx) into a directory and returns the
// repository's root and that directory.
func buildWireApps(t *testing.T) (root, bin string) {
	t.Helper()
	root, _ = filepath.Abs("../..")
	bin = t.TempDir()
	for _, app := range []string{"nethttp-pgx", "grpc-pgx"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, app), "./"+app)
		cmd.Dir = filepath.Join(root, "apps") // the reference servers' module
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", app, err, out)
		}
	}
	return root, bin
}
