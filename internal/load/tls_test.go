package load

import (
	"bufio"
	"crypto/tls"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// throwaway writes a throwaway CA for the test and returns its files and
// the CA's PEM.
func throwaway(t *testing.T) (ThrowawayCA, []byte) {
	t.Helper()
	ca, err := WriteThrowawayCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(ca.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	return ca, pem
}

// tlsServer serves the connections of a raw server over TLS with the
// throwaway certificate, and returns its https URL.
func tlsServer(t *testing.T, ca ThrowawayCA, alpn []string, serve func(c net.Conn)) string {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: alpn}
	url := rawServer(t, func(c net.Conn) {
		tc := tls.Server(c, conf)
		defer tc.Close()
		if err := tc.Handshake(); err != nil {
			return
		}
		serve(tc)
	})
	return "https://" + strings.TrimPrefix(url, "http://")
}

func TestTLSClosedLoopTrustsTheThrowawayCA(t *testing.T) {
	ca, pem := throwaway(t)
	url := tlsServer(t, ca, nil, fixedResponder(okResponse))
	res := runLoad(t, url, Config{Connections: 4, Duration: 300 * time.Millisecond, CACertPEM: pem})
	if res.Successes < 100 || res.ErrorCount() != 0 {
		t.Fatalf("%d successes, errors %v; want a clean TLS run", res.Successes, res.Errors)
	}
	s := res.TLS
	if s == nil || s.Version != "TLS 1.3" || s.Handshakes != 4 || s.HandshakesInWindow != 0 || s.Failures != 0 {
		t.Fatalf("tls stats %+v; want 4 TLS 1.3 handshakes, all before the window", s)
	}
	if s.HandshakeMicros.P50 <= 0 {
		t.Errorf("handshake time %+v, want it measured", s.HandshakeMicros)
	}
	if res.Protocol != "http1" {
		t.Errorf("protocol %q, want http1", res.Protocol)
	}
}

// A certificate that the CA file does not vouch for fails every request,
// in the tls class, with the reason kept.
func TestTLSUntrustedCertificateFailsAsTLS(t *testing.T) {
	ca, _ := throwaway(t)
	_, otherPEM := throwaway(t)
	url := tlsServer(t, ca, nil, fixedResponder(okResponse))
	res := runLoad(t, url, Config{Connections: 2, Duration: 200 * time.Millisecond, CACertPEM: otherPEM})
	if res.Successes != 0 || res.Errors["tls"] == 0 || res.Errors["tls"] != res.Attempts {
		t.Fatalf("%d successes, errors %v in %d attempts; want every attempt failed as tls", res.Successes, res.Errors, res.Attempts)
	}
	if !strings.Contains(res.TLS.FirstError, "unknown authority") {
		t.Errorf("first error %q, want the certificate's", res.TLS.FirstError)
	}
}

// A server that closes after each answer makes every request reopen: with
// resumption on, the handshakes resume the session; off, none does.
func TestTLSResumptionIsStated(t *testing.T) {
	closing := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	serveOnce := func(c net.Conn) {
		if skipRequestHead(bufio.NewReader(c)) == nil {
			c.Write(closing)
		}
	}
	ca, pem := throwaway(t)
	url := tlsServer(t, ca, nil, serveOnce)
	for _, resume := range []bool{true, false} {
		// 1 s: a handshake took up to 157 ms on a busy CI host, where
		// 300 ms windows held 7 (2026-12-07).
		res := runLoad(t, url, Config{Connections: 2, Duration: time.Second, CACertPEM: pem, TLSResume: resume})
		s := res.TLS
		if res.Successes < 10 || s.HandshakesInWindow < 10 {
			t.Fatalf("resume %v: %d successes, %+v; want many, each on a new connection", resume, res.Successes, s)
		}
		if resume && s.Resumed < s.Handshakes/2 || !resume && s.Resumed != 0 || s.Resumption != resume {
			t.Errorf("resume %v: %d of %d handshakes resumed (resumption %v)", resume, s.Resumed, s.Handshakes, s.Resumption)
		}
	}
}
