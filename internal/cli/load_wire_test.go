package cli

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/stackbench/stackbench/internal/load"
)

// `stackbench load --cacert FILE https://...` trusts the server through
// the CA file, and the JSON output keeps today's fields with the TLS
// layer beside them.
func TestLoadTLSWithCACert(t *testing.T) {
	dir := t.TempDir()
	ca, err := load.WriteThrowawayCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true}`))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	code, out, stderr := loadMain(t, dir, "-c", "2", "-d", "300ms", "-o", "json", "--cacert", "ca.pem", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"throughput_rps", "errors", "latency_us", "generator_cpu_s", "tls"} {
		if _, ok := res[key]; !ok {
			t.Errorf("JSON output lacks %q", key)
		}
	}
	if tlsRes := res["tls"].(map[string]any); tlsRes["handshakes"].(float64) != 2 || res["successes"].(float64) == 0 {
		t.Errorf("tls %v, successes %v; want 2 handshakes and successes", tlsRes, res["successes"])
	}

	// Without the CA file the system's roots do not vouch for it: every
	// request fails as tls, and the exit status says nothing succeeded.
	code, out, _ = loadMain(t, dir, "-c", "1", "-d", "200ms", srv.URL)
	if code != 1 || !strings.Contains(out, "tls") || !strings.Contains(out, "unknown authority") {
		t.Errorf("exit %d, output:\n%s\nwant exit 1 with the tls class and the reason", code, out)
	}
	code, _, stderr = loadMain(t, dir, "--cacert", "ca.pem", "http://127.0.0.1:1/")
	if code != 2 || !strings.Contains(stderr, "--tls") {
		t.Errorf("--cacert on a cleartext URL: exit %d, %s; want a usage error naming --tls", code, stderr)
	}
}

// `stackbench load --h2c --streams N` speaks HTTP/2 in cleartext, and says
// so in the same JSON; --streams without HTTP/2 is bad input.
func TestLoadH2CStreams(t *testing.T) {
	srv := httptest.NewServer(h2c.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			w.WriteHeader(505)
		}
	}), &http2.Server{}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	code, out, stderr := loadMain(t, dir, "-c", "2", "--h2c", "--streams", "4", "-d", "300ms", "-o", "json", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res load.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Protocol != "h2c" || res.H2 == nil || res.H2.StreamsPerConnection != 4 || res.Successes == 0 || res.ErrorCount() != 0 {
		t.Errorf("protocol %q, h2 %+v, %d successes, errors %v", res.Protocol, res.H2, res.Successes, res.Errors)
	}
	for _, bad := range [][]string{{"--streams", "4"}, {"--h2", "--h2c"}, {"--grpc", "a.B/C"}} {
		code, _, stderr = loadMain(t, dir, append(bad, srv.URL)...)
		if code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("%q: exit %d, %s; want a usage error naming the flag", bad, code, stderr)
		}
	}
}

// `stackbench load --grpc METHOD --proto FILE --message JSON` sends the
// message encoded through the .proto, and counts a call by its grpc-status.
func TestLoadGRPCFromProto(t *testing.T) {
	var bad atomic.Int64
	srv := httptest.NewServer(h2c.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		// The gRPC frame of GetUserRequest{id: 4242}.
		if r.URL.Path != "/saas.Users/GetUser" || string(b) != "\x00\x00\x00\x00\x03\x08\x92\x21" {
			bad.Add(1)
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.Write([]byte{0, 0, 0, 0, 0})
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
	}), &http2.Server{}))
	t.Cleanup(srv.Close)
	proto, _ := filepath.Abs("../load/grpcmsg/testdata/saas.proto")
	code, out, stderr := loadMain(t, t.TempDir(), "-c", "1", "--streams", "4", "-d", "300ms", "-o", "json",
		"--grpc", "saas.Users/GetUser", "--proto", proto, "--message", `{"id": 4242}`, srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res load.Result
	json.Unmarshal([]byte(out), &res)
	if res.Protocol != "grpc" || res.GRPCMethod != "saas.Users/GetUser" || res.Successes == 0 || res.ErrorCount() != 0 || bad.Load() != 0 {
		t.Errorf("protocol %q, method %q, %d successes, errors %v, %d bad requests", res.Protocol, res.GRPCMethod, res.Successes, res.Errors, bad.Load())
	}
	code, _, stderr = loadMain(t, t.TempDir(), "--grpc", "saas.Users/GetUser", "--proto", proto, "--message", `{"nope": 1}`, srv.URL)
	if code != 2 || !strings.Contains(stderr, "--message") {
		t.Errorf("a bad message: exit %d, %s", code, stderr)
	}
}

// `--reflect` finds the method through server reflection; the server's
// answer, UNIMPLEMENTED, is counted by its code.
func TestLoadGRPCReflect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	testgrpc.RegisterTestServiceServer(s, &testgrpc.UnimplementedTestServiceServer{})
	reflection.Register(s)
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	code, out, stderr := loadMain(t, t.TempDir(), "-c", "1", "--streams", "2", "-d", "200ms", "-o", "json",
		"--grpc", "grpc.testing.TestService/EmptyCall", "--reflect", "--message", `{}`, "http://"+ln.Addr().String()+"/")
	var res load.Result
	json.Unmarshal([]byte(out), &res)
	if code != 1 || res.Attempts == 0 || res.Errors["grpc_unimplemented"] != res.Attempts {
		t.Errorf("exit %d (%s), errors %v in %d attempts; want every call counted as grpc_unimplemented", code, stderr, res.Errors, res.Attempts)
	}
}

// `--messages FILE` sends a pool of request messages round-robin, each
// encoded through the .proto: a templated gRPC case's variants.
func TestLoadGRPCMessages(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(h2c.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[string(b)]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/grpc")
		w.Write([]byte{0, 0, 0, 0, 0})
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
	}), &http2.Server{}))
	t.Cleanup(srv.Close)
	proto, _ := filepath.Abs("../load/grpcmsg/testdata/saas.proto")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "msgs.jsonl"), []byte("{\"id\":1}\n\n{\"id\":2}\n"), 0o600)
	code, out, stderr := loadMain(t, dir, "-c", "1", "-d", "300ms", "-o", "json",
		"--grpc", "saas.Users/GetUser", "--proto", proto, "--messages", "msgs.jsonl", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res load.Result
	json.Unmarshal([]byte(out), &res)
	// GetUserRequest{id: 1} and {id: 2}, framed.
	one, two := "\x00\x00\x00\x00\x02\x08\x01", "\x00\x00\x00\x00\x02\x08\x02"
	mu.Lock()
	defer mu.Unlock()
	if res.PoolSize != 2 || len(seen) != 2 || seen[one] == 0 || seen[two] == 0 || res.Successes == 0 {
		t.Errorf("pool size %d, requests seen %v, %d successes", res.PoolSize, seen, res.Successes)
	}
	os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"id\":1}\n{\"nope\":1}\n"), 0o600)
	code, _, stderr = loadMain(t, dir, "--grpc", "saas.Users/GetUser", "--proto", proto, "--messages", "bad.jsonl", srv.URL)
	if code != 2 || !strings.Contains(stderr, "--messages bad.jsonl: line 2") {
		t.Errorf("a bad message in the pool: exit %d, %s", code, stderr)
	}
	code, _, stderr = loadMain(t, dir, "--grpc", "saas.Users/GetUser", "--proto", proto, "--messages", "msgs.jsonl", "--message", "{}", srv.URL)
	if code != 2 || !strings.Contains(stderr, "--messages") {
		t.Errorf("--message and --messages: exit %d, %s", code, stderr)
	}
}

// `-H 'authorization: Bearer …'` with --grpc is the calls' metadata,
// and --metadata FILE gives each message of --messages its own: against
// a server that requires it (UNAUTHENTICATED without, as behind an auth
// interceptor) the calls succeed with it and fail, each counted as
// grpc_unauthenticated, without; a name the engine sets is refused.
func TestLoadGRPCMetadata(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if md, _ := metadata.FromIncomingContext(ctx); !slices.Contains([]string{"Bearer s3cret", "Bearer other"}, strings.Join(md.Get("authorization"), ",")) {
			return nil, status.Error(codes.Unauthenticated, "no token")
		}
		return handler(ctx, req)
	}))
	testgrpc.RegisterTestServiceServer(s, emptyCaller{})
	reflection.Register(s)
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	url := "http://" + ln.Addr().String() + "/"
	dir := t.TempDir()
	run := func(args ...string) (int, load.Result, string) {
		code, out, stderr := loadMain(t, dir, append(append([]string{"-c", "1", "--streams", "2", "-d", "200ms", "-o", "json",
			"--grpc", "grpc.testing.TestService/EmptyCall", "--reflect"}, args...), url)...)
		var res load.Result
		json.Unmarshal([]byte(out), &res)
		return code, res, stderr
	}
	code, res, stderr := run("--message", "{}")
	if code != 1 || res.Attempts == 0 || res.Errors["grpc_unauthenticated"] != res.Attempts {
		t.Errorf("without metadata: exit %d (%s), errors %v in %d attempts; want every call grpc_unauthenticated", code, stderr, res.Errors, res.Attempts)
	}
	code, res, stderr = run("--message", "{}", "-H", "authorization: Bearer s3cret")
	if code != 0 || res.Successes == 0 || res.ErrorCount() != 0 {
		t.Errorf("with -H: exit %d (%s), %d successes, errors %v", code, stderr, res.Successes, res.Errors)
	}
	os.WriteFile(filepath.Join(dir, "msgs.jsonl"), []byte("{}\n{}\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "md.jsonl"), []byte("{\"authorization\": \"Bearer s3cret\"}\n{\"authorization\": \"Bearer other\"}\n"), 0o600)
	code, res, stderr = run("--messages", "msgs.jsonl", "--metadata", "md.jsonl")
	if code != 0 || res.Successes == 0 || res.ErrorCount() != 0 || res.PoolSize != 2 {
		t.Errorf("with --metadata: exit %d (%s), %d successes, errors %v, pool %d", code, stderr, res.Successes, res.Errors, res.PoolSize)
	}
	os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"authorization\": \"x\"}\n{\"grpc-timeout\": \"1S\"}\n"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--message", "{}", "-H", "content-type: application/json"}, `-H: metadata "content-type" is set by the engine on every gRPC call`},
		{[]string{"--messages", "msgs.jsonl", "--metadata", "bad.jsonl"}, `--metadata bad.jsonl: line 2: metadata "grpc-timeout": names starting with grpc- are reserved by gRPC`},
		{[]string{"--message", "{}", "--metadata", "md.jsonl"}, `--metadata md.jsonl: 2 lines for 1 messages`},
	} {
		if code, _, stderr := run(tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %s; want 2 and %s", tc.args, code, stderr, tc.want)
		}
	}
}

// emptyCaller answers grpc.testing.TestService/EmptyCall.
type emptyCaller struct {
	testgrpc.UnimplementedTestServiceServer
}

func (emptyCaller) EmptyCall(context.Context, *testgrpc.Empty) (*testgrpc.Empty, error) {
	return &testgrpc.Empty{}, nil
}
