package workload

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// TestAgainstReferenceServer builds the reference server once and runs the
// gate against it, and against deliberately wrong variants of it.
func TestAgainstReferenceServer(t *testing.T) {
	bin := buildReference(t, t.TempDir())
	saas, _ := Builtin("saas-slice", DefaultJWTSecret)

	t.Run("saas-slice passes, and two instances agree", func(t *testing.T) {
		var results []StackResult
		for _, stack := range []string{"ref-a", "ref-b"} {
			db := pgtest.FreshDB(t)
			base := startReference(t, bin, "saas-slice", db)
			r := runAgainst(t, saas, base, stack, db)
			logFailures(t, r)
			if !r.OK() || len(r.Checks) != documentedSaaSChecks {
				t.Fatalf("%s: %d/%d checks passed, error %q", stack, r.Passed(), len(r.Checks), r.Error)
			}
			results = append(results, r)
		}
		rep := NewReport("saas-slice", results)
		if !rep.OK() || len(rep.Warnings) != 0 {
			var b bytes.Buffer
			rep.WriteText(&b)
			t.Errorf("two reference instances disagree:\n%s", b.String())
		}
	})

	t.Run("micro passes", func(t *testing.T) {
		micro, _ := Builtin("micro", DefaultJWTSecret)
		base := startReference(t, bin, "micro", "")
		r := runAgainst(t, micro, base, "ref", "")
		logFailures(t, r)
		if !r.OK() || len(r.Checks) == 0 {
			t.Fatalf("%d/%d checks passed, error %q", r.Passed(), len(r.Checks), r.Error)
		}
	})

	t.Run("wrong servers fail", func(t *testing.T) {
		db := pgtest.FreshDB(t)
		target, _ := url.Parse(startReference(t, bin, "saas-slice", db))
		for _, v := range wrongServers(target) {
			t.Run(v.name, func(t *testing.T) {
				srv := httptest.NewServer(v.handler)
				defer srv.Close()
				r := runAgainst(t, saas, srv.URL, v.name, db)
				if r.OK() {
					t.Fatalf("the gate passed a server that %s", v.name)
				}
				if v.stackError != "" {
					if !strings.Contains(r.Error, v.stackError) {
						t.Errorf("stack error %q, want it to contain %q", r.Error, v.stackError)
					}
					return
				}
				found := false
				for _, f := range r.Failures() {
					if f.Check == v.passes {
						t.Errorf("check %s must pass, but: %s", v.passes, f.Problem)
					}
					if f.Check == v.check && strings.Contains(f.Problem, v.problem) {
						t.Logf("%s", f.line("FAIL"))
						found = true
					}
				}
				if !found {
					logFailures(t, r)
					t.Errorf("no failure of check %s saying %q", v.check, v.problem)
				}
			})
		}
	})
}

// wrongServer is the reference server behind a proxy that breaks one rule.
type wrongServer struct {
	name    string
	handler http.Handler
	// check and problem: the failure the gate must report.
	check, problem string
	// stackError: the stack-level error the gate must report instead.
	stackError string
	// passes: a check that must not fail.
	passes string
}

func wrongServers(target *url.URL) []wrongServer {
	proxy := func(rewrite func(req *http.Request, body []byte) []byte) http.Handler {
		p := httputil.NewSingleHostReverseProxy(target)
		if rewrite != nil {
			p.ModifyResponse = func(resp *http.Response) error {
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					return err
				}
				resp.Body.Close()
				body = rewrite(resp.Request, body)
				resp.Body = io.NopCloser(bytes.NewReader(body))
				resp.ContentLength = int64(len(body))
				resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
				return nil
			}
		}
		return p
	}
	replace := func(pattern, repl string) http.Handler {
		re := regexp.MustCompile(pattern)
		return proxy(func(_ *http.Request, b []byte) []byte { return re.ReplaceAll(b, []byte(repl)) })
	}
	plain := proxy(nil)
	var dead atomic.Bool

	return []wrongServer{
		{name: "answers age as a string", handler: replace(`"age":(\d+)`, `"age":"$1"`),
			check: "user/ok", problem: `body differs: at byte`},
		{name: "puts name before id", handler: replace(`\{"id":(\d+),"name":("[^"]*")`, `{"name":$2,"id":$1`),
			check: "user/first", problem: "body differs"},
		{name: "answers 500 to a bad id", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/users/abc" {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			plain.ServeHTTP(w, r)
		}), check: "user/id-not-numeric", problem: "status 500, want 400 or 422"},
		{name: "accepts alg none", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "+base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`))) {
				r.Header.Set("Authorization", "Bearer "+HarnessToken(DefaultJWTSecret))
			}
			plain.ServeHTTP(w, r)
		}), check: "me/alg-none", problem: "status 200, want 401"},
		{name: "orders the order's keys differently", handler: replace(`\{"id":(\d+),"userId":(\d+)`, `{"userId":$2,"id":$1`),
			check: "order/ok", problem: "keys are userId,id,amount,currency,createdAt, want id,userId,amount,currency,createdAt"},
		{name: "answers amount as a number", handler: replace(`"amount":"([0-9.]+)"`, `"amount":$1`),
			check: "order/ok", problem: `amount is 19.99, want "19.99"`},
		{name: "answers without Content-Type", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/health" {
				w.Write([]byte(`{"status":"ok"}`)) // net/http sniffs text/plain
				return
			}
			plain.ServeHTTP(w, r)
		}), check: "health/ok", problem: `Content-Type "text/plain; charset=utf-8", want application/json`},
		{name: "answers 201 without storing the order", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "POST" && r.URL.Path == "/orders" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				fmt.Fprintf(w, `{"id":999999,"userId":4242,"amount":"19.99","currency":"USD","createdAt":%q}`,
					time.Now().UTC().Format(apiTimeLayout))
				return
			}
			plain.ServeHTTP(w, r)
		}), check: "order/ok", problem: "order 999999 is not in the orders table"},
		{name: "answers 201 without storing an order", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "POST" && r.URL.Path == "/orders" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				fmt.Fprintf(w, `{"id":999999,"userId":4242,"amount":"19.99","currency":"USD","createdAt":%q}`,
					time.Now().UTC().Format(apiTimeLayout))
				return
			}
			plain.ServeHTTP(w, r)
		}), check: "order/only-created-orders-stored", problem: "an order answered 201 is not stored"},
		{name: "stores an order it rejects", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if r.URL.Path == "/orders" && bytes.Contains(body, []byte(`"currency":"JPY"`)) {
				body = bytes.Replace(body, []byte("JPY"), []byte("USD"), 1)
				rec := httptest.NewRecorder()
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				plain.ServeHTTP(rec, r)
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			plain.ServeHTTP(w, r)
		}), check: "order/only-created-orders-stored", problem: "a rejected order was stored"},
		{name: "accepts an unknown currency", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if r.URL.Path == "/orders" {
				body = bytes.Replace(body, []byte("JPY"), []byte("USD"), 1)
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			plain.ServeHTTP(w, r)
		}), check: "order/currency-unknown", problem: "status 201, want 400 or 422",
			// the order it stored was answered 201: no rejected order was stored
			passes: "order/only-created-orders-stored"},
		{name: "crashes on a bad n", handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery == "n=0" {
				dead.Store(true)
			}
			if dead.Load() {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.(*net.TCPConn).SetLinger(0)
					conn.Close()
				}
				return
			}
			plain.ServeHTTP(w, r)
		}), stackError: "stopped answering at check cpu/n-0"},
	}
}
