package load

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var engineSuites = []uint16{tls.TLS_AES_128_GCM_SHA256, tls.TLS_AES_256_GCM_SHA384, tls.TLS_CHACHA20_POLY1305_SHA256}

// HKDF-Expand-Label against RFC 8448 §3 (a simple 1-RTT handshake): the
// server's handshake traffic key and iv.
func TestExpandLabelMatchesRFC8448(t *testing.T) {
	secret, _ := hex.DecodeString("b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38")
	key, err1 := expandLabel(sha256.New, secret, "key", 16)
	iv, err2 := expandLabel(sha256.New, secret, "iv", 12)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if hex.EncodeToString(key) != "3fce516009c21727d0f2e4e86ee403bc" || hex.EncodeToString(iv) != "5d313eb2671276ee13000b30" {
		t.Errorf("key %x iv %x, want RFC 8448's 3fce5160… and 5d313eb2…", key, iv)
	}
}

// pairKeys returns the two ends of one direction under suite: what seals
// and what opens.
func pairKeys(t testing.TB, suite uint16) (sealer, opener *trafficKeys) {
	t.Helper()
	h, _, _ := suiteParams(suite)
	secret := make([]byte, h().Size())
	rand.Read(secret)
	sealer, opener = &trafficKeys{}, &trafficKeys{}
	if err := sealer.set(suite, secret); err != nil {
		t.Fatal(err)
	}
	if err := opener.set(suite, bytes.Clone(secret)); err != nil {
		t.Fatal(err)
	}
	return sealer, opener
}

// The record layer itself, with each suite: records up to the largest,
// padding stripped, a KeyUpdate on both ends, a changed byte refused.
func TestRecordLayerSealsAndOpensEachSuite(t *testing.T) {
	for _, suite := range engineSuites {
		t.Run(tls.CipherSuiteName(suite), func(t *testing.T) {
			sealer, opener := pairKeys(t, suite)
			big := bytes.Repeat([]byte("x"), maxPlaintextBytes)
			var wire []byte
			wire = sealer.seal(wire, recordAppData, []byte("GET / HTTP/1.1\r\n\r\n"))
			wire = sealer.seal(wire, recordAppData, big)
			wire = sealer.seal(wire, 0, []byte{'p', recordAppData, 0, 0, 0}) // padded
			if err := sealer.update(); err != nil {
				t.Fatal(err)
			}
			wire = sealer.seal(wire, recordAppData, []byte("after"))
			want := [][]byte{[]byte("GET / HTTP/1.1\r\n\r\n"), big, []byte("p"), []byte("after")}
			for i, w := range want {
				size, err := recordSize(wire)
				if err != nil || size == 0 || size > len(wire) {
					t.Fatalf("record %d: size %d, %v", i, size, err)
				}
				if i == 3 {
					if err := opener.update(); err != nil {
						t.Fatal(err)
					}
				}
				typ, content, err := opener.open(wire[:size])
				if err != nil || typ != recordAppData || !bytes.Equal(content, w) {
					t.Fatalf("record %d: type %d, %d bytes, %v; want application data, %d bytes", i, typ, len(content), err, len(w))
				}
				wire = wire[size:]
			}
			rec := sealer.seal(nil, recordAppData, []byte("tampered"))
			rec[len(rec)-1] ^= 1
			if _, _, err := opener.open(rec); !errors.Is(err, errBadRecordMAC) {
				t.Errorf("a changed tag opened: %v", err)
			}
		})
	}
}

// recordBound hands a reader one record at a time, however the bytes
// come.
func TestRecordBoundStopsAtRecords(t *testing.T) {
	stream := append([]byte{23, 3, 3, 0, 3, 'a', 'b', 'c', 23, 3, 3, 0, 0}, 22, 3, 3, 0, 1, 'z')
	var b recordBound
	var got []int
	for at := 0; at < len(stream); {
		p := b.limit(make([]byte, 100))
		n := copy(p, stream[at:])
		b.advance(p[:n])
		got = append(got, n)
		at += n
	}
	if fmt.Sprint(got) != "[5 3 5 5 1]" || !b.atBoundary() {
		t.Errorf("reads %v (at a boundary: %v), want [5 3 5 5 1] ending at one", got, b.atBoundary())
	}
}

// suiteWanted is the suite a TLS 1.3 handshake with Go's server agrees on
// here: AES-128-GCM, or what TestEngineRecordLayerChaCha20 asks for.
func suiteWanted() string {
	if s := os.Getenv("STACKBENCH_TEST_TLS_SUITE"); s != "" {
		return s
	}
	return "TLS_AES_128_GCM_SHA256"
}

// Against Go's crypto/tls server, HTTP/1.1: responses of several records,
// a connection the server closes every 25 responses (a reconnect, a new
// handshake), session tickets that arrive with the first response.
func TestTLS13AgainstCryptoTLSHTTP1(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 5000) // 50 kB: four records
	head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n", len(body))
	keep := append([]byte(head+"\r\n"), body...)
	closing := append([]byte(head+"Connection: close\r\n\r\n"), body...)
	ca, pem := throwaway(t)
	url := tlsServer(t, ca, nil, func(c net.Conn) {
		r := bufio.NewReader(c)
		for i := 1; ; i++ {
			if skipRequestHead(r) != nil {
				return
			}
			if i%25 == 0 {
				c.Write(closing)
				return
			}
			if _, err := c.Write(keep); err != nil {
				return
			}
		}
	})
	res := runLoad(t, url, Config{Connections: 4, Duration: 400 * time.Millisecond, CACertPEM: pem})
	s := res.TLS
	if res.Successes < 100 || res.ErrorCount() != 0 || s.RecordLayer != "engine" || s.CipherSuite != suiteWanted() {
		t.Fatalf("%d successes, errors %v, tls %+v; want a clean run on the engine's record layer with %s", res.Successes, res.Errors, s, suiteWanted())
	}
	if res.Reconnects < 2 || s.HandshakesInWindow < 2 {
		t.Errorf("%d reconnects, %d handshakes in the window; want the server's closes reopened", res.Reconnects, s.HandshakesInWindow)
	}
}

// Against Go's net/http server, HTTP/2 over TLS 1.3 with responses of
// several records.
func TestTLS13AgainstCryptoTLSH2(t *testing.T) {
	ca, pem := throwaway(t)
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("h2"), 20000)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()
	res := runLoad(t, srv.URL+"/", Config{Protocol: ProtoH2, Connections: 2, Streams: 4, Duration: 300 * time.Millisecond, CACertPEM: pem})
	s := res.TLS
	if res.Successes < 50 || res.ErrorCount() != 0 || s.ALPN != "h2" || s.RecordLayer != "engine" || s.CipherSuite != suiteWanted() {
		t.Errorf("%d successes, errors %v, tls %+v; want a clean h2 run on the engine's record layer with %s", res.Successes, res.Errors, s, suiteWanted())
	}
}

// Go's client and server choose ChaCha20-Poly1305 when the CPU has no
// AES instructions; GODEBUG=cpu.aes=off makes this process's children
// believe so. The two tests above run again in one, on that suite.
func TestTLS13AgainstCryptoTLSChaCha20(t *testing.T) {
	if os.Getenv("STACKBENCH_TEST_TLS_SUITE") != "" {
		t.Skip("already the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestTLS13AgainstCryptoTLS(HTTP1|H2)$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=cpu.aes=off", "STACKBENCH_TEST_TLS_SUITE=TLS_CHACHA20_POLY1305_SHA256")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Count(string(out), "--- PASS") != 2 {
		t.Fatalf("the tests on ChaCha20: %v\n%s", err, out)
	}
}

// A KeyUpdate the engine asks for, against Go's server: the server moves
// its read keys on, answers with its own KeyUpdate and moves its write
// keys on; the engine reads the answer after it.
func TestKeyUpdateAgainstCryptoTLS(t *testing.T) {
	ca, pem := throwaway(t)
	url := tlsServer(t, ca, nil, fixedResponder(okResponse))
	tgt, err := resolveTarget(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := tlsClientConfig(Config{CACertPEM: pem}, tgt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys keyLog
	conf = workerTLSConfig(conf, false, &keys)
	fd := dialBlocking(t, tgt)
	var s tlsSession
	if err := s.handshake(fd, conf, &keys, nanotime()+int64(5*time.Second), nil); err != nil || !s.engine {
		t.Fatalf("handshake: %v (engine record layer: %v)", err, s.engine)
	}
	first := bytes.Clone(s.rd.secret)
	if err := s.sendKeyUpdate(true); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, errno := s.write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); errno != 0 {
			t.Fatalf("request %d: %v", i, errno)
		}
		if got := readAnswer(t, &s, len(okResponse)); !bytes.Equal(got, okResponse) {
			t.Fatalf("request %d: answer %q", i, got)
		}
	}
	if bytes.Equal(first, s.rd.secret) {
		t.Errorf("the server's KeyUpdate never came: the read secret is the first")
	}
}

// dialBlocking opens a non-blocking socket to tgt and waits until it is
// connected.
func dialBlocking(t *testing.T, tgt target) int {
	t.Helper()
	family, sa := tgt.sockaddr()
	fd, err := newSocket(family)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Connect(fd, sa); err != nil && err != unix.EINPROGRESS {
		t.Fatal(err)
	}
	if _, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, 5000); err != nil {
		t.Fatal(err)
	}
	return fd
}

// readAnswer reads n bytes of application data from s, waiting for them.
func readAnswer(t *testing.T, s *tlsSession, n int) []byte {
	t.Helper()
	var got []byte
	buf := make([]byte, 4096)
	deadline := time.Now().Add(5 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		k, errno := s.read(buf)
		switch {
		case errno == unix.EAGAIN:
			unix.Poll([]unix.PollFd{{Fd: int32(s.fd.fd), Events: unix.POLLIN}}, 100)
		case errno != 0 || k == 0:
			t.Fatalf("read: %d, %v (record layer: %v)", k, errno, s.failed)
		}
		got = append(got, buf[:k]...)
	}
	return got
}

// recordServer is a liar's end of a TLS 1.3 connection: crypto/tls's
// server handshake (without session tickets of its own, reading one
// record at a time), then records of its own with the keys from its key
// log. A session ticket of its making goes out in the same write as the
// server's first flight, so the engine's crypto/tls would read it with
// the flight unless its reads stop at record boundaries.
type recordServer struct {
	net.Conn
	bound  recordBound
	keys   keyLog
	rd, wr trafficKeys
	in     *bufio.Reader
	// ticketSent: the flight went out, with the ticket. keyUpdates
	// counts the client's KeyUpdates.
	ticketSent bool
	keyUpdates int
}

// Read reads at most up to the end of the current record, so the
// server's crypto/tls leaves the client's first request unread.
func (rs *recordServer) Read(p []byte) (int, error) {
	p = rs.bound.limit(p)
	n, err := rs.Conn.Read(p)
	rs.bound.advance(p[:n])
	return n, err
}

// Write sends what crypto/tls writes; the write of the flight that ends
// with the server's Finished (the first after the key log has the
// server's traffic secret) gets a session ticket after it, protected
// with that secret. The suite is read from the ServerHello that the
// flight starts with (a record, a handshake header, version and random,
// the session id, then the suite).
func (rs *recordServer) Write(p []byte) (int, error) {
	if rs.ticketSent || rs.keys.server == nil {
		return rs.Conn.Write(p)
	}
	rs.ticketSent = true
	at := recordHeaderBytes + 4 + 2 + 32
	suite := uint16(p[at+1+int(p[at])])<<8 | uint16(p[at+2+int(p[at])])
	if err := rs.wr.set(suite, rs.keys.server); err != nil {
		return 0, err
	}
	ticket := append([]byte{msgNewSessionTicket, 0, 0, 200}, make([]byte, 200)...)
	if _, err := rs.Conn.Write(rs.wr.seal(bytes.Clone(p), recordHandshake, ticket)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// liarServer serves each connection's requests with answer once the
// handshake is done.
func liarServer(t *testing.T, ca ThrowawayCA, answer func(rs *recordServer, i int) error) string {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	url := rawServer(t, func(c net.Conn) {
		rs := &recordServer{Conn: c, in: bufio.NewReader(c)}
		conf := &tls.Config{Certificates: []tls.Certificate{cert}, SessionTicketsDisabled: true,
			MinVersion: tls.VersionTLS13, KeyLogWriter: &rs.keys}
		tc := tls.Server(rs, conf)
		if tc.Handshake() != nil || !rs.ticketSent {
			return
		}
		client, _, ok := rs.keys.secrets()
		if !ok || rs.rd.set(tc.ConnectionState().CipherSuite, client) != nil {
			return
		}
		for i := 1; ; i++ {
			if rs.readRequest() != nil || answer(rs, i) != nil {
				return
			}
		}
	})
	return "https://" + strings.TrimPrefix(url, "http://")
}

// readRequest reads records up to the end of a request head, moving its
// read keys on at the client's KeyUpdates.
func (rs *recordServer) readRequest() error {
	var head []byte
	for !bytes.Contains(head, []byte("\r\n\r\n")) {
		rec := make([]byte, recordHeaderBytes)
		if _, err := io.ReadFull(rs.in, rec); err != nil {
			return err
		}
		rec = append(rec, make([]byte, int(rec[3])<<8|int(rec[4]))...)
		if _, err := io.ReadFull(rs.in, rec[recordHeaderBytes:]); err != nil {
			return err
		}
		typ, content, err := rs.rd.open(rec)
		switch {
		case err != nil:
			return err
		case typ == recordHandshake && len(content) == 5 && content[0] == msgKeyUpdate:
			if err := rs.rd.update(); err != nil {
				return err
			}
			rs.keyUpdates++
		case typ == recordAppData:
			head = append(head, content...)
		default:
			return fmt.Errorf("record type %d", typ)
		}
	}
	return nil
}

// send writes one record of type typ carrying p, changed by mangle.
func (rs *recordServer) send(typ byte, p []byte, mangle func([]byte)) error {
	rec := rs.wr.seal(nil, typ, p)
	if mangle != nil {
		mangle(rec)
	}
	_, err := rs.Conn.Write(rec)
	return err
}

// A server that asks for a KeyUpdate before every answer, and writes each
// answer as two records, the second split across two writes: requests
// keep succeeding, and the engine's KeyUpdates reach it.
func TestTLS13LiarKeyUpdatesAndSplitRecords(t *testing.T) {
	ca, pem := throwaway(t)
	var updates atomic.Int64
	url := liarServer(t, ca, func(rs *recordServer, i int) error {
		if rs.keyUpdates != i-1 {
			return fmt.Errorf("%d KeyUpdates from the client before request %d", rs.keyUpdates, i)
		}
		if err := rs.send(recordHandshake, []byte{msgKeyUpdate, 0, 0, 1, 1}, nil); err != nil {
			return err
		}
		if err := rs.wr.update(); err != nil {
			return err
		}
		updates.Add(1)
		half := len(okResponse) / 2
		if err := rs.send(recordAppData, okResponse[:half], nil); err != nil {
			return err
		}
		rec := rs.wr.seal(nil, recordAppData, okResponse[half:])
		if _, err := rs.Conn.Write(rec[:7]); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
		_, err := rs.Conn.Write(rec[7:])
		return err
	})
	res := runLoad(t, url, Config{Connections: 2, Duration: 300 * time.Millisecond, CACertPEM: pem})
	if res.Successes < 20 || res.ErrorCount() != 0 || res.TLS.RecordLayer != "engine" {
		t.Fatalf("%d successes, errors %v, tls %+v; want a clean run on the engine's record layer", res.Successes, res.Errors, res.TLS)
	}
	if updates.Load() < res.Successes {
		t.Errorf("%d KeyUpdates for %d successes", updates.Load(), res.Successes)
	}
}

// Liars whose records fail: each request they answer fails in the class
// tls (or closed, for close_notify), never as throughput, with the
// reason kept.
func TestTLS13LiarRecordsFail(t *testing.T) {
	for _, tc := range []struct {
		name, class, reason string
		answer              func(rs *recordServer) error
	}{
		{"corrupted tag", "tls", "bad record MAC", func(rs *recordServer) error {
			return rs.send(recordAppData, okResponse, func(rec []byte) { rec[len(rec)-1] ^= 0x80 })
		}},
		{"alert", "tls", "internal error", func(rs *recordServer) error {
			return rs.send(recordAlert, []byte{2, 80}, nil)
		}},
		{"oversized record", "tls", "longer than", func(rs *recordServer) error {
			_, err := rs.Conn.Write([]byte{recordAppData, 3, 3, 0x41, 0x01})
			return err
		}},
		{"plaintext record", "tls", "other than application data", func(rs *recordServer) error {
			_, err := rs.Conn.Write([]byte{recordAlert, 3, 3, 0, 2, 2, 40})
			return err
		}},
		{"close_notify", "closed", "", func(rs *recordServer) error {
			return rs.send(recordAlert, []byte{1, 0}, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ca, pem := throwaway(t)
			url := liarServer(t, ca, func(rs *recordServer, i int) error {
				if err := tc.answer(rs); err != nil {
					return err
				}
				return errors.New("answered: the client closes")
			})
			res := runLoad(t, url, Config{Connections: 2, Duration: 200 * time.Millisecond, CACertPEM: pem})
			if res.Successes != 0 || res.Attempts < 2 || res.Errors[tc.class] != res.Attempts {
				t.Fatalf("%d successes, errors %v in %d attempts; want every attempt failed as %s", res.Successes, res.Errors, res.Attempts, tc.class)
			}
			if tc.reason == "" && res.TLS.FirstRecordError != "" || !strings.Contains(res.TLS.FirstRecordError, tc.reason) {
				t.Errorf("first record error %q, want it to say %q", res.TLS.FirstRecordError, tc.reason)
			}
		})
	}
}

// TLS 1.2, and TLS 1.3 with --tls-resume (the session cache takes the
// tickets), keep crypto/tls's record layer, and say so.
func TestTLS12AndResumptionKeepCryptoTLSRecords(t *testing.T) {
	ca, pem := throwaway(t)
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	tls12 := rawServer(t, func(c net.Conn) {
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tls.VersionTLS12})
		if tc.Handshake() == nil {
			fixedResponder(okResponse)(tc)
		}
	})
	for _, run := range []struct {
		url     string
		resume  bool
		version string
	}{
		{"https://" + strings.TrimPrefix(tls12, "http://"), false, "TLS 1.2"},
		{tlsServer(t, ca, nil, fixedResponder(okResponse)), true, "TLS 1.3"},
	} {
		res := runLoad(t, run.url, Config{Connections: 2, Duration: 200 * time.Millisecond, CACertPEM: pem, TLSResume: run.resume})
		if s := res.TLS; res.Successes < 50 || res.ErrorCount() != 0 || s.Version != run.version || s.RecordLayer != "crypto/tls" {
			t.Errorf("%s, resume %v: %d successes, errors %v, tls %+v; want a clean run on crypto/tls's record layer",
				run.version, run.resume, res.Successes, res.Errors, s)
		}
	}
}

// BenchmarkRecordLayerPerRequest is the engine's record layer's own CPU
// for one request: a request sealed into one record and a record of that
// size opened (what the engine does with each answer), AES-128-GCM.
func BenchmarkRecordLayerPerRequest(b *testing.B) {
	req := []byte("GET /users/1 HTTP/1.1\r\nHost: 127.0.0.1:8443\r\nUser-Agent: stackbench\r\n\r\n")
	var out []byte
	for _, suite := range engineSuites {
		b.Run(tls.CipherSuiteName(suite), func(b *testing.B) {
			sealer, opener := pairKeys(b, suite)
			b.ReportAllocs()
			for b.Loop() {
				out = sealer.seal(out[:0], recordAppData, req)
				if _, _, err := opener.open(out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
