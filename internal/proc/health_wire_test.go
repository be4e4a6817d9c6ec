package proc

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/load"
)

// TestHealthOverTheStacksWire: the health check speaks the stack's
// protocol — HTTP/2 only in cleartext, TLS trusting the run's CA, a gRPC
// call judged by its grpc-status — and fails where it should.
func TestHealthOverTheStacksWire(t *testing.T) {
	var grpcStatus = "0"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/saas.Users/Health":
			if r.ProtoMajor != 2 || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/grpc" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Trailer", "Grpc-Status")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte{0, 0, 0, 0, 0})
			w.Header().Set("Grpc-Status", grpcStatus)
		case r.ProtoMajor == 2:
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
		}
	})
	// Cleartext: HTTP/2 with prior knowledge only.
	h2c := httptest.NewUnstartedServer(h)
	h2c.Config.Protocols = new(http.Protocols)
	h2c.Config.Protocols.SetUnencryptedHTTP2(true)
	h2c.Config.Protocols.SetHTTP1(true)
	h2c.Start()
	defer h2c.Close()
	// TLS with a certificate of a throwaway CA.
	dir := t.TempDir()
	ca, err := load.WriteThrowawayCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv := httptest.NewUnstartedServer(h)
	cert, err := tlsKeyPair(ca)
	if err != nil {
		t.Fatal(err)
	}
	tlsSrv.TLS = cert
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	caPEM := readFile(t, ca.CAFile)

	try := func(spec Spec, url string) (int, error) {
		c, err := healthClient(spec)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseIdleConnections()
		status, _, err := healthOnce(context.Background(), c, url, spec.HealthProtocol == "grpc")
		return status, err
	}
	if st, err := try(Spec{}, h2c.URL+"/health"); st != http.StatusHTTPVersionNotSupported || err != nil {
		t.Errorf("HTTP/1.1 to the test server: %d %v; want 505 (it tells the versions apart)", st, err)
	}
	if st, err := try(Spec{HealthProtocol: "h2c"}, h2c.URL+"/health"); st != 200 || err != nil {
		t.Errorf("h2c: %d %v", st, err)
	}
	if st, err := try(Spec{HealthProtocol: "grpc"}, h2c.URL+"/saas.Users/Health"); st != 200 || err != nil {
		t.Errorf("grpc over h2c: %d %v", st, err)
	}
	tlsURL := strings.Replace(tlsSrv.URL, "http://", "https://", 1)
	if st, err := try(Spec{HealthProtocol: "h2", HealthCA: caPEM}, tlsURL+"/health"); st != 200 || err != nil {
		t.Errorf("h2 over TLS: %d %v", st, err)
	}
	if st, err := try(Spec{HealthProtocol: "grpc", HealthCA: caPEM}, tlsURL+"/saas.Users/Health"); st != 200 || err != nil {
		t.Errorf("grpc over TLS: %d %v", st, err)
	}
	// Another CA's certificate is not trusted.
	other, err := load.WriteThrowawayCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := try(Spec{HealthProtocol: "h2", HealthCA: readFile(t, other.CAFile)}, tlsURL+"/health"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a certificate of another CA: %v; want it refused", err)
	}
	// A gRPC answer with a non-zero status is not healthy.
	grpcStatus = "14"
	if st, err := try(Spec{HealthProtocol: "grpc"}, h2c.URL+"/saas.Users/Health"); st == 200 || err == nil || !strings.Contains(err.Error(), `grpc-status "14"`) {
		t.Errorf("grpc-status 14: %d %v; want it unhealthy", st, err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tlsKeyPair(ca load.ThrowawayCA) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}, nil
}
