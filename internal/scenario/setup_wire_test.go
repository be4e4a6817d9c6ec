package scenario

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/load/grpcmsg"
	"github.com/stackbench/stackbench/internal/workload"
)

// wireConduit serves /login (answering a token and the protocol it was
// asked over) with TLS and HTTP/2 by ALPN when tls is true, else with
// HTTP/1.1 and h2c.
func wireConduit(t *testing.T, tls bool) (*httptest.Server, []byte) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token":"tok-%s","proto":%q,"tls":%v}`, r.URL.Query().Get("u"), r.Proto, r.TLS != nil)
	}))
	if !tls {
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Start()
		t.Cleanup(srv.Close)
		return srv, nil
	}
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// TestSetupOverTLSAndHTTP2: the steps go over the stack's wire — TLS
// trusting the given CA (HTTP/1.1, and HTTP/2 by ALPN) and h2c with prior
// knowledge — and their captures are read as over HTTP/1.1.
func TestSetupOverTLSAndHTTP2(t *testing.T) {
	steps := []Step{{Name: "login", Scope: ScopeStack, Repeat: 2, Request: mustRequest(t, "POST", "/login?u=${i}", nil, `{}`),
		Capture: []CaptureSpec{{"token", "body.token"}, {"proto", "body.proto"}, {"tls", "body.tls"}}}}
	for _, tc := range []struct {
		protocol string
		tls      bool
		want     string
	}{
		{"http1", true, "map[proto:[HTTP/1.1 HTTP/1.1] tls:[true true] token:[tok-1 tok-2]]"},
		{"h2", true, "map[proto:[HTTP/2.0 HTTP/2.0] tls:[true true] token:[tok-1 tok-2]]"},
		{"h2c", false, "map[proto:[HTTP/2.0 HTTP/2.0] tls:[false false] token:[tok-1 tok-2]]"},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			srv, ca := wireConduit(t, tc.tls)
			client, err := workload.WireClient(tc.protocol, ca, 0)
			if err != nil {
				t.Fatal(err)
			}
			sc := &Scenario{Steps: steps}
			got, err := sc.Setup(context.Background(), Target{BaseURL: srv.URL, Client: client}, ScopeStack, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("captures %v, want %s", got, tc.want)
			}
		})
	}
	// Without the CA, TLS is refused: the steps trust the run's CA only.
	srv, _ := wireConduit(t, true)
	_, err := RunSetup(context.Background(), srv.URL, steps, ScopeStack, nil, SetupOptions{})
	if err == nil || !strings.Contains(err.Error(), "setup step login: POST /login?u=1 (i=1): no answer:") || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a step to a TLS stack without its CA: %v", err)
	}
}

const authProto = `syntax = "proto3";
package saas;
service Auth {
  rpc Login(Creds) returns (Creds);
}
message Creds { string email = 1; string token = 2; }
`

// grpcAuth serves saas.Auth/Login over h2c: it answers the request's
// message with "tok-" before its email (the last bytes of the message
// written as a token field), or UNAUTHENTICATED for nobody@x.
func grpcAuth(t *testing.T, m *grpcmsg.Method) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/saas.Auth/Login" || r.Header.Get("Content-Type") != "application/grpc" {
			http.Error(w, "not a gRPC call", http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(r.Body)
		js, err := m.DecodeJSON(b[5:])
		if err != nil {
			t.Errorf("the step's message: %v", err)
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status, Grpc-Message")
		w.Header().Set("Session", "s-1")
		if strings.Contains(string(js), "nobody@x") {
			w.Header().Set("Grpc-Status", "16")
			w.Header().Set("Grpc-Message", "who are you")
			return
		}
		email := strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(string(js), " ", ""), `{"email":"`), `","token":""}`)
		out, err := m.Encode(fmt.Sprintf(`{"email": %q, "token": "tok-%s"}`, email, email))
		if err != nil {
			t.Errorf("encode the answer of %s: %v", js, err)
		}
		frame := append([]byte{0, 0, 0, 0, byte(len(out))}, out...)
		w.Write(frame)
		w.Header().Set("Grpc-Status", "0")
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestSetupAsGRPCCalls: on a gRPC stack a step is sent as its gRPC call,
// its message templated (${env:…}, ${i}), and its captures read the
// answer as JSON (body.<path>) and its metadata (header.<Name>); a
// failed call names the step and its grpc-status, and an HTTP-only step
// says how to write it.
func TestSetupAsGRPCCalls(t *testing.T) {
	file := filepath.Join(t.TempDir(), "auth.proto")
	if err := os.WriteFile(file, []byte(authProto), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := grpcmsg.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.Method("saas.Auth/Login")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpcAuth(t, m)
	client, err := workload.WireClient("grpc", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	target := Target{BaseURL: srv.URL, Client: client, Method: func(_ context.Context, name string) (*grpcmsg.Method, error) { return d.Method(name) }}
	message := func(s string) Template {
		tp, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return tp
	}
	sc := &Scenario{Env: map[string]string{"DOMAIN": "bench.test"}, Steps: []Step{
		{Name: "login", Scope: ScopeStack, Repeat: 2, GRPC: &GRPCStep{Method: "saas.Auth/Login", Message: message(`{"email": "u${i}@${env:DOMAIN}"}`)},
			Capture: []CaptureSpec{{"token", "body.token"}, {"session", "header.Session"}}},
	}}
	got, err := sc.Setup(context.Background(), target, ScopeStack, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "map[session:[s-1 s-1] token:[tok-u1@bench.test tok-u2@bench.test]]"; fmt.Sprint(got) != want {
		t.Errorf("captures %v, want %s", got, want)
	}
	// A case's message uses what the step captured.
	calls, err := ExpandCall("c", "saas.Auth/Me", message(`{"email": "x", "token": "${token}"}`), nil, sc.Values(got))
	if err != nil || len(calls) != 2 || calls[1].Message != `{"email": "x", "token": "tok-u2@bench.test"}` {
		t.Errorf("the case's calls %+v, %v", calls, err)
	}

	for _, tc := range []struct {
		name string
		step Step
		want string
	}{
		{"a status other than OK", Step{Name: "login", Scope: ScopeStack, GRPC: &GRPCStep{Method: "saas.Auth/Login", Message: message(`{"email": "nobody@x"}`)}},
			"setup step login: gRPC saas.Auth/Login answered grpc-status 16 (who are you), want 0 (OK)"},
		{"an unknown method", Step{Name: "login", Scope: ScopeStack, GRPC: &GRPCStep{Method: "saas.Auth/Logout", Message: message(`{}`)}},
			`setup step login: gRPC saas.Auth/Logout: the method's descriptors:`},
		{"an HTTP-only step", Step{Name: "login", Scope: ScopeStack, Request: mustRequest(t, "POST", "/login", nil, "")},
			"setup step login: the stack speaks gRPC and the step is an HTTP request; write it as a gRPC call too: grpc: {method: package.Service/Method"},
		{"a capture that finds nothing", Step{Name: "login", Scope: ScopeStack, GRPC: &GRPCStep{Method: "saas.Auth/Login", Message: message(`{"email": "a@b"}`)},
			Capture: []CaptureSpec{{"jwt", "body.jwt"}}},
			`setup step login: jwt: capture body.jwt found nothing in the body: "{\"email\":\"a@b\",\"token\":\"tok-a@b\"}"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RunSetup(context.Background(), target.BaseURL, []Step{tc.step}, ScopeStack, nil, SetupOptions{Client: client, Method: target.Method})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %s", err, tc.want)
			}
		})
	}
	// A gRPC-only step on a stack that does not speak gRPC.
	_, err = RunSetup(context.Background(), srv.URL, []Step{{Name: "login", Scope: ScopeStack, GRPC: &GRPCStep{Method: "saas.Auth/Login"}}}, ScopeStack, nil, SetupOptions{})
	if err == nil || !strings.Contains(err.Error(), "setup step login: the step is only a gRPC call, and the stack does not speak gRPC; add path:") {
		t.Errorf("a gRPC-only step on an HTTP stack: %v", err)
	}
}
