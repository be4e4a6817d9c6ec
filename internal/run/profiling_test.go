package run

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
)

// A pprof URL that answers 404 is a problem the record states, with what
// to check; a body that is no profile is one too.
func TestProfileFetchProblems(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := pprofClient(plan.Wire{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&profileSession{client: c}).get(srv.URL+"/debug/pprof/allocs", time.Second)
	if err == nil || !strings.Contains(err.Error(), "answered 404") || !strings.Contains(err.Error(), "pprof:") {
		t.Errorf("404: %v; want the status and the pprof: key to check", err)
	}
	if _, err := parseProfile([]byte("<html>not a profile</html>"), nil); err == nil || !strings.Contains(err.Error(), "not a pprof profile") {
		t.Errorf("an HTML body: %v", err)
	}
}

// pprof: is read over the stack's wire: HTTP/2 with prior knowledge from
// a stack that speaks h2c only, TLS trusting the run's authority from a
// stack with tls: on, and not without it.
func TestPprofOverTheStacksWire(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/pprof/allocs" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(r.Proto))
	})
	h2c := httptest.NewUnstartedServer(h)
	h2c.Config.Protocols = new(http.Protocols)
	h2c.Config.Protocols.SetUnencryptedHTTP2(true)
	h2c.Start()
	defer h2c.Close()
	secure := httptest.NewUnstartedServer(h)
	secure.EnableHTTP2 = true
	secure.StartTLS()
	defer secure.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw})
	fetch := func(w plan.Wire, ca []byte, url string) (string, error) {
		c, err := pprofClient(w, ca)
		if err != nil {
			return "", err
		}
		b, err := (&profileSession{client: c}).get(url+"/debug/pprof/allocs", 5*time.Second)
		return string(b), err
	}
	if got, err := fetch(plan.Wire{Protocol: plan.WireH2C}, nil, h2c.URL); err != nil || got != "HTTP/2.0" {
		t.Errorf("h2c: %q, %v", got, err)
	}
	if got, err := fetch(plan.Wire{Protocol: plan.WireH2, TLS: true}, ca, secure.URL); err != nil || got != "HTTP/2.0" {
		t.Errorf("h2 over TLS: %q, %v", got, err)
	}
	if got, err := fetch(plan.Wire{TLS: true}, ca, secure.URL); err != nil || got != "HTTP/1.1" {
		t.Errorf("HTTP/1.1 over TLS: %q, %v", got, err)
	}
	if _, err := fetch(plan.Wire{TLS: true}, nil, secure.URL); err == nil {
		t.Error("a TLS stack's pprof was read without the run's authority")
	}
}

// profilingStack names JIT frames for perf by runtime, in the profiling
// phase's processes only, keeping the stack's own NODE_OPTIONS.
func TestProfilingStackEnvironment(t *testing.T) {
	node := profilingStack(plan.Stack{Name: "n", Runtime: plan.RuntimeNode, Env: map[string]string{"NODE_OPTIONS": "--max-old-space-size=512"}, EnvOrder: []string{"NODE_OPTIONS"}})
	if got := node.Env["NODE_OPTIONS"]; got != "--max-old-space-size=512 --perf-basic-prof" || len(node.EnvOrder) != 1 {
		t.Errorf("node: NODE_OPTIONS %q, order %v", got, node.EnvOrder)
	}
	py := profilingStack(plan.Stack{Name: "p", Runtime: plan.RuntimePython})
	if py.Env["PYTHONPERFSUPPORT"] != "1" || py.EnvOrder[0] != "PYTHONPERFSUPPORT" {
		t.Errorf("python: env %v", py.Env)
	}
	orig := plan.Stack{Name: "g", Runtime: "go", Env: map[string]string{"A": "1"}}
	if g := profilingStack(orig); len(g.Env) != 1 {
		t.Errorf("go: env %v, want it unchanged", g.Env)
	}
}
