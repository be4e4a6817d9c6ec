package saas

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

// TestServeHTTPWire: with STACKBENCH_PROTOCOL=h2c the server answers
// HTTP/2 in cleartext (prior knowledge) beside HTTP/1.1; with a
// certificate and its key it serves TLS, HTTP/2 agreed through ALPN.
func TestServeHTTPWire(t *testing.T) {
	ca, err := load.WriteThrowawayCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(ca.CAFile)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.Proto)) })
	for _, tc := range []struct {
		name   string
		env    map[string]string
		scheme string
		client func(p *http.Protocols, tr *http.Transport)
		proto  string
	}{
		{"h2c", map[string]string{"STACKBENCH_PROTOCOL": "h2c"}, "http", func(p *http.Protocols, _ *http.Transport) { p.SetUnencryptedHTTP2(true) }, "HTTP/2.0"},
		{"h2c also HTTP/1.1", map[string]string{"STACKBENCH_PROTOCOL": "h2c"}, "http", func(p *http.Protocols, _ *http.Transport) { p.SetHTTP1(true) }, "HTTP/1.1"},
		{"tls h2", map[string]string{"TLS_CERT_FILE": ca.CertFile, "TLS_KEY_FILE": ca.KeyFile}, "https", func(p *http.Protocols, tr *http.Transport) {
			p.SetHTTP2(true)
			tr.TLSClientConfig = &tls.Config{RootCAs: roots}
		}, "HTTP/2.0"},
		{"tls http1", map[string]string{"TLS_CERT_FILE": ca.CertFile, "TLS_KEY_FILE": ca.KeyFile}, "https", func(p *http.Protocols, tr *http.Transport) {
			p.SetHTTP1(true)
			tr.TLSClientConfig = &tls.Config{RootCAs: roots}
		}, "HTTP/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := wireFromEnv(func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			ln, _ := net.Listen("tcp", "127.0.0.1:0")
			addr := ln.Addr().String()
			ln.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- serveHTTP(ctx, addr, h, w) }()
			defer func() { cancel(); <-done }()
			tr := &http.Transport{Protocols: new(http.Protocols)}
			tc.client(tr.Protocols, tr)
			c := &http.Client{Transport: tr, Timeout: 2 * time.Second}
			var resp *http.Response
			for range 200 {
				if resp, err = c.Get(tc.scheme + "://" + addr + "/"); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Proto != tc.proto {
				t.Errorf("answered over %s, want %s", resp.Proto, tc.proto)
			}
		})
	}
	if _, err := wireFromEnv(func(k string) string { return map[string]string{"TLS_CERT_FILE": "x"}[k] }); err == nil {
		t.Error("a certificate without its key was accepted")
	}
	if _, err := wireFromEnv(func(k string) string { return map[string]string{"STACKBENCH_PROTOCOL": "grpc"}[k] }); err == nil {
		t.Error("grpc was accepted by a JSON server")
	}
}
