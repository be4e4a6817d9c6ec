package agent

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/tlsca"
)

// serveEnv makes the test binary a tiny HTTP server (for the processes
// the agent starts): it answers 200 on /health at 127.0.0.1:$PORT.
const serveEnv = "STACKBENCH_AGENT_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
		addr := "127.0.0.1:" + os.Getenv("PORT")
		if cert := os.Getenv("TLS_CERT_FILE"); cert != "" {
			// It says where its key is, for the test to look at.
			http.HandleFunc("/key", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, os.Getenv("TLS_KEY_FILE")) })
			fmt.Fprintln(os.Stderr, http.ListenAndServeTLS(addr, cert, os.Getenv("TLS_KEY_FILE"), nil))
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, http.ListenAndServe(addr, nil))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// session is an agent served over in-memory pipes.
type session struct {
	client *Client
	stdin  *io.PipeWriter // the agent's stdin, written by the client
	served chan error     // Serve's result
}

func startSession(t *testing.T) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{stdin: inW, served: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), inR, outW)
		outW.Close()
		s.served <- err
	}()
	s.client = NewClient("pipe", outR, inW)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.served:
		case <-time.After(10 * time.Second):
			t.Error("the agent did not return after its stdin closed")
		}
	})
	return s
}

func TestHelloClockAndPort(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	h, err := s.client.Hello(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	want := fileSHA(t, exe)
	if h.Version != Version || h.OS != runtime.GOOS || h.Arch != runtime.GOARCH || h.CPUs != runtime.NumCPU() || h.Binary != want {
		t.Fatalf("hello = %+v; want version %d, %s/%s, %d CPUs, binary %s", h, Version, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), want)
	}
	off, err := s.client.Clock(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	// One clock on both sides: the offset is within the error bound
	// (plus the JSON's nanosecond rounding).
	if off.Exchanges != 5 || off.Offset.Abs() > off.Bound+time.Microsecond {
		t.Fatalf("clock offset %s from %d exchanges; the same clock must be within the bound", off, off.Exchanges)
	}
	port, err := s.client.FreePort(ctx)
	if err != nil || port <= 0 {
		t.Fatalf("free port = %d, %v", port, err)
	}
	l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("the port the agent called free cannot be bound: %v", err)
	}
	l.Close()
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// rawSession drives Serve with hand-written lines.
func rawSession(t *testing.T) (send func(string), recv func() Response, served chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served = make(chan error, 1)
	go func() {
		err := Serve(context.Background(), inR, outW)
		outW.Close()
		served <- err
	}()
	t.Cleanup(func() { inW.Close() })
	sc := bufio.NewScanner(outR)
	send = func(line string) { io.WriteString(inW, line+"\n") }
	recv = func() Response {
		if !sc.Scan() {
			t.Fatalf("the agent closed its stdout: %v", sc.Err())
		}
		var r Response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("response %q: %v", sc.Text(), err)
		}
		return r
	}
	return send, recv, served
}

func TestAgentRefusesAnotherVersion(t *testing.T) {
	send, recv, served := rawSession(t)
	send(`{"id":1,"op":"hello","version":99}`)
	r := recv()
	if r.ID != 1 || !strings.Contains(r.Error, "version 99") || !strings.Contains(r.Error, "version "+strconv.Itoa(Version)) {
		t.Fatalf("response %+v; want an error naming version 99 and version %d", r, Version)
	}
	if err := <-served; err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("Serve returned %v; want the mismatch", err)
	}
}

func TestAgentWantsHelloFirst(t *testing.T) {
	send, recv, served := rawSession(t)
	send(`{"id":7,"op":"clock"}`)
	if r := recv(); r.ID != 7 || !strings.Contains(r.Error, `must be "hello"`) {
		t.Fatalf("response %+v; want a refusal", r)
	}
	if err := <-served; err == nil {
		t.Fatal("Serve went on without a hello")
	}
}

func TestAgentAnswersUnknownOperations(t *testing.T) {
	send, recv, _ := rawSession(t)
	send(fmt.Sprintf(`{"id":1,"op":"hello","version":%d}`, Version))
	if r := recv(); r.Hello == nil {
		t.Fatalf("hello answered %+v", r)
	}
	send(`{"id":2,"op":"teleport"}`)
	if r := recv(); r.ID != 2 || !strings.Contains(r.Error, `unknown operation "teleport"`) {
		t.Fatalf("response %+v", r)
	}
	send(`not json`)
	if r := recv(); !strings.Contains(r.Error, "not JSON") {
		t.Fatalf("response %+v", r)
	}
}

// An agent that answers hello with another version is refused by the
// client, naming both.
func TestClientRefusesAnotherVersion(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
			var req Request
			json.Unmarshal(sc.Bytes(), &req)
			json.NewEncoder(outW).Encode(Response{ID: req.ID, Hello: &Hello{Version: Version + 1}})
		}
	}()
	c := NewClient("old-host", outR, inW)
	defer c.Close()
	_, err := c.Hello(context.Background())
	want := fmt.Sprintf("coordinator speaks version %d, the agent version %d", Version, Version+1)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "old-host") {
		t.Fatalf("Hello = %v; want %q naming the host", err, want)
	}
}

// A call waiting when the session ends fails with ErrSessionLost, and so
// does every later call.
func TestLostSession(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	// The call is waiting once its request has come through the pipe
	// (the client registers a call before it writes it).
	sent := make(chan struct{})
	go func() {
		br := bufio.NewReader(inR)
		br.ReadBytes('\n')
		close(sent)
		io.Copy(io.Discard, br)
	}()
	c := NewClient("gone", outR, inW)
	errc := make(chan error, 1)
	go func() { _, err := c.FreePort(context.Background()); errc <- err }()
	<-sent
	outW.Close()
	if err := <-errc; !errors.Is(err, ErrSessionLost) {
		t.Fatalf("waiting call = %v; want ErrSessionLost", err)
	}
	<-c.Done()
	if _, err := c.Clock(context.Background(), 1); !errors.Is(err, ErrSessionLost) {
		t.Fatalf("later call = %v; want ErrSessionLost", err)
	}
}

// The agent starts a tree, samples it between two instants, and stops it
// when its stdin closes.
// startTestServer greets the agent and starts this test binary as a
// server named "server" through it (TestMain serves /health on PORT).
func startTestServer(t *testing.T, s *session) (spec StartSpec, pid int, boot time.Duration) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	port, err := s.client.FreePort(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the server's log goes there
	spec = StartSpec{Name: "server", Dir: t.TempDir(), Command: exe, Env: []string{serveEnv + "=1", "PORT=" + strconv.Itoa(port)},
		Port: port, HealthPath: "/health", LogPath: "server", BootTimeout: 10 * time.Second}
	pid, boot, err = s.client.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	return spec, pid, boot
}

func TestStartSampleAndStopOnClose(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	spec, pid, boot := startTestServer(t, s)
	port := spec.Port
	if boot <= 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("start: pid %d, boot %s; want a live process and a boot time", pid, boot)
	}
	if _, _, err := s.client.Start(ctx, spec); err == nil || !strings.Contains(err.Error(), "already started") {
		t.Fatalf("a second start of the same name = %v", err)
	}
	from := time.Now().Add(50 * time.Millisecond)
	smp, err := s.client.Sample(ctx, "server", from, from.Add(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// The sampler opens once its first scan of the process table is done,
	// which a busy host can delay well past from; it closes at to.
	if smp.Wall <= 0 || smp.Wall > 600*time.Millisecond || smp.RSSPeakBytes <= 0 || smp.CPUSeconds < 0 {
		t.Fatalf("sample %+v; want at most about 300 ms of wall time and some memory", smp)
	}
	if time.Now().Before(from.Add(300 * time.Millisecond)) {
		t.Fatal("the sample returned before its end")
	}
	if _, err := s.client.Sample(ctx, "nobody", from, from.Add(time.Millisecond)); err == nil {
		t.Fatal("a sample of an unknown process succeeded")
	}
	// A service: a listener outside the tree (this test's process), its
	// tree sampled apart; the server's own port is in the tree, and a
	// port nobody holds is named.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	svc := ln.Addr().(*net.TCPAddr).Port
	unheld, err := s.client.FreePort(ctx)
	if err != nil {
		t.Fatal(err)
	}
	from = time.Now().Add(20 * time.Millisecond)
	smp, err = s.client.SampleWith(ctx, "server", []int{svc, port, unheld}, from, from.Add(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if v := smp.Services; v == nil || v.Processes < 1 || v.RSSPeakBytes <= 0 || len(v.Unheld) != 1 || v.Unheld[0] != unheld {
		t.Fatalf("services %+v; want this process's tree apart (not the server's own port) and port %d unheld", v, unheld)
	}
	s.stdin.Close()
	if err := <-s.served; err != nil {
		t.Fatalf("Serve after stdin closed = %v", err)
	}
	s.served <- nil // for the cleanup
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("pid %d still runs after the agent's stdin closed", pid)
	}
}

func TestStopStopsOneTree(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.client.Stop(ctx, "server"); err == nil || !strings.Contains(err.Error(), `no process "server"`) {
		t.Fatalf("stop of nothing = %v", err)
	}
	port, _ := s.client.FreePort(ctx)
	exe, _ := os.Executable()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the server's log goes there
	pid, _, err := s.client.Start(ctx, StartSpec{Name: "server", Dir: t.TempDir(), Command: exe,
		Env: []string{serveEnv + "=1", "PORT=" + strconv.Itoa(port)}, Port: port, HealthPath: "/health",
		LogPath: "server", BootTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.client.Stop(ctx, "server"); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatalf("pid %d runs after stop", pid)
	}
}

func TestEstimateOffsetTakesTheFastestExchange(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	samples := []ClockSample{
		// 10 ms round trip, the answer held up: the midpoint says +104 ms.
		{Sent: at(0), Received: at(10), Agent: at(109)},
		// 2 ms round trip: +100 ms ± 1 ms.
		{Sent: at(20), Received: at(22), Agent: at(121)},
		// 4 ms: +98 ms ± 2 ms.
		{Sent: at(30), Received: at(34), Agent: at(130)},
	}
	o, ok := EstimateOffset(samples)
	if !ok || o.Offset != 100*time.Millisecond || o.Bound != time.Millisecond || o.Exchanges != 3 {
		t.Fatalf("estimate = %+v; want +100ms ± 1ms from 3", o)
	}
	if o.String() != "+100ms ± 1ms" {
		t.Fatalf("String = %q", o.String())
	}
	behind, _ := EstimateOffset([]ClockSample{{Sent: at(0), Received: at(2), Agent: at(-4)}})
	if behind.Offset != -5*time.Millisecond || behind.String() != "-5ms ± 1ms" {
		t.Fatalf("behind = %+v (%s)", behind, behind)
	}
	if _, ok := EstimateOffset(nil); ok {
		t.Fatal("an estimate from no samples")
	}
}

// A server with TLS gets its certificate and key as files of the agent's
// run directory (the key mode 0600), is health-checked over TLS trusting
// the CA sent, and its files go when it stops; the run directory goes
// when the session ends.
func TestStartWithTLSWritesTheKeyPrivately(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	is, err := tlsca.Issue(time.Hour, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	port, _ := s.client.FreePort(ctx)
	exe, _ := os.Executable()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the server's log goes there
	spec := StartSpec{Name: "tls.1", Dir: t.TempDir(), Command: exe, Env: []string{serveEnv + "=1", "PORT=" + strconv.Itoa(port)},
		Port: port, HealthPath: "/health", HealthProtocol: "http1", HealthCA: is.CAPEM, LogPath: "tls.1", BootTimeout: 10 * time.Second,
		TLS: &ServerTLS{CertPEM: is.CertPEM, KeyPEM: is.KeyPEM, CertEnv: "TLS_CERT_FILE", KeyEnv: "TLS_KEY_FILE"}}
	if _, _, err := s.client.Start(ctx, spec); err != nil {
		t.Fatalf("start over TLS: %v", err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(is.CAPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/key", port))
	if err != nil {
		t.Fatalf("the server does not serve the certificate sent: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	key := string(b)
	fi, err := os.Stat(key)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file %q: %v, mode %v; want mode 0600", key, err, fi.Mode())
	}
	if got, _ := os.ReadFile(key); string(got) != string(is.KeyPEM) {
		t.Fatal("the key file does not hold the key sent")
	}
	if err := s.client.Stop(ctx, "tls.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(key)); !os.IsNotExist(err) {
		t.Errorf("the server's files are still there after it stopped: %v", err)
	}
	runDir := filepath.Dir(filepath.Dir(key))
	if _, err := os.Stat(runDir); err != nil {
		t.Fatalf("the run directory %s: %v", runDir, err)
	}
	s.stdin.Close()
	<-s.served
	s.served <- nil // for the cleanup
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("the run directory %s is still there after the session ended: %v", runDir, err)
	}

	// A certificate without its key is refused, and leaves nothing.
	s = startSession(t)
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	spec.TLS = &ServerTLS{CertPEM: is.CertPEM, CertEnv: "TLS_CERT_FILE", KeyEnv: "TLS_KEY_FILE"}
	if _, _, err := s.client.Start(ctx, spec); err == nil || !strings.Contains(err.Error(), "needs a certificate, a key") {
		t.Fatalf("a start with no key = %v", err)
	}
}
