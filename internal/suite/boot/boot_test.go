package boot

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/workload"
)

// With STACKBENCH_BOOT_HELPER=server the test binary is a stack: it
// touches ALLOC_MB of memory, sleeps START_DELAY_MS, then serves /health
// and /users/4242, whose first answer takes FIRST_MS longer (a lazy
// database pool) and whose status is STATUS (default 200). With WIRE=h2c
// it answers HTTP/2 with prior knowledge only (505 to HTTP/1.1); with
// TLS_CERT_FILE and TLS_KEY_FILE it serves TLS (HTTP/1.1 and h2).
func TestMain(m *testing.M) {
	if os.Getenv("STACKBENCH_BOOT_HELPER") == "server" {
		go func() { time.Sleep(time.Minute); os.Exit(9) }()
		helperServer()
		return
	}
	os.Exit(m.Run())
}

var ballast []byte

func helperServer() {
	ballast = make([]byte, envInt("ALLOC_MB")<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	time.Sleep(time.Duration(envInt("START_DELAY_MS")) * time.Millisecond)
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	status := 200
	if s := envInt("STATUS"); s != 0 {
		status = s
	}
	var served atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	// POST /mark makes NEEDS_MARK's file: the row a setup step creates,
	// kept (as a database keeps it) across processes.
	mux.HandleFunc("POST /mark", func(w http.ResponseWriter, r *http.Request) { os.WriteFile(os.Getenv("NEEDS_MARK"), nil, 0o644) })
	mux.HandleFunc("/users/4242", func(w http.ResponseWriter, r *http.Request) {
		if os.Getenv("WIRE") == "h2c" && r.ProtoMajor != 2 {
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
			return
		}
		if !served.Swap(true) {
			time.Sleep(time.Duration(envInt("FIRST_MS")) * time.Millisecond)
		}
		if mark := os.Getenv("NEEDS_MARK"); mark != "" {
			if _, err := os.Stat(mark); err != nil {
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"error":"no user 4242: run the setup first"}`))
				return
			}
		}
		w.WriteHeader(status)
		w.Write([]byte(`{"id":4242}`))
	})
	srv := &http.Server{Handler: mux}
	switch {
	case os.Getenv("TLS_CERT_FILE") != "":
		srv.ServeTLS(l, os.Getenv("TLS_CERT_FILE"), os.Getenv("TLS_KEY_FILE"))
	case os.Getenv("WIRE") == "h2c":
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetUnencryptedHTTP2(true)
		srv.Serve(l)
	default:
		srv.Serve(l)
	}
}

func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

func helperStack(t *testing.T, name string, env ...string) Stack {
	return Stack{
		Name:       name,
		Dir:        t.TempDir(),
		Command:    "exec '" + os.Args[0] + "'",
		Env:        append([]string{"STACKBENCH_BOOT_HELPER=server"}, env...),
		HealthPath: "/health",
		LogPath:    filepath.Join(t.TempDir(), name+".log"),
	}
}

var userCase = workload.Case{Name: "user", Method: "GET", Path: "/users/4242", Expect: []int{200}, Database: true}

// TestOrder: the rounds take the Williams sequences in turn, so that over
// a cycle of rounds every stack starts right after every other equally
// often within a round (rotated, with three stacks A came right after C in
// every round and never right after B).
func TestOrder(t *testing.T) {
	got := Order(3, 4)
	want := [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {0, 2, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Order(3, 4) = %v, want %v", got, want)
	}
	for n := 2; n <= 5; n++ {
		after := map[[2]int]int{}
		for _, round := range Order(n, stats.WilliamsCycle(n)) {
			for i := 1; i < len(round); i++ {
				after[[2]int{round[i-1], round[i]}]++
			}
		}
		if len(after) != n*(n-1) {
			t.Errorf("%d stacks: %d ordered neighbours over a cycle, want all %d: %v", n, len(after), n*(n-1), after)
		}
		for pair, k := range after {
			if k != after[[2]int{1, 0}] {
				t.Errorf("%d stacks: %v neighbours %d times, %v %d times", n, pair, k, [2]int{1, 0}, after[[2]int{1, 0}])
			}
		}
	}
}

func TestRunMeasuresColdStarts(t *testing.T) {
	const firstMS = 80
	stacks := []Stack{
		helperStack(t, "small", "ALLOC_MB=8", "START_DELAY_MS=100", "FIRST_MS="+strconv.Itoa(firstMS)),
		helperStack(t, "big", "ALLOC_MB=48", "START_DELAY_MS=300", "FIRST_MS="+strconv.Itoa(firstMS)),
	}
	var lines []string
	res, err := Run(context.Background(), stacks, Options{Starts: 2, Request: userCase, BootTimeout: 20 * time.Second,
		StopGrace: time.Second, Progress: func(l string) { lines = append(lines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, st := range res.Starts {
		order = append(order, st.Stack)
	}
	if want := []string{"small", "big", "big", "small"}; !slices.Equal(order, want) {
		t.Errorf("start order %v, want %v (rotated per round)", order, want)
	}
	delay := map[string]time.Duration{"small": 100 * time.Millisecond, "big": 300 * time.Millisecond}
	for _, st := range res.Starts {
		if st.Boot < delay[st.Stack] || st.Boot > delay[st.Stack]+15*time.Second {
			t.Errorf("%s start %d: boot %v for a start delay of %v", st.Stack, st.Seq, st.Boot, delay[st.Stack])
		}
		if !st.FirstOK || st.FirstStatus != 200 || st.FirstRequest < firstMS*time.Millisecond {
			t.Errorf("%s start %d: first request %v status %d ok %v, the server holds it %d ms", st.Stack, st.Seq, st.FirstRequest, st.FirstStatus, st.FirstOK, firstMS)
		}
	}
	if len(res.Stacks) != 2 || res.Case != "user" {
		t.Fatalf("result %+v", res)
	}
	small, big := res.Stacks[0], res.Stacks[1]
	if small.Starts != 2 || big.Starts != 2 || small.FirstFailed != 0 {
		t.Errorf("summaries %+v %+v", small, big)
	}
	// Two starts: the median is the lower one (one start's figure, as the
	// report takes it), the IQR half their distance.
	b0, b1 := Nanoseconds(res.Starts[1].Boot), Nanoseconds(res.Starts[2].Boot)
	if big.Boot.Median != min(b0, b1) || big.Boot.IQR != abs(b1-b0)/2 {
		t.Errorf("big boot spread %+v from %v and %v", big.Boot, b0, b1)
	}
	if big.IdleRSS.Median < small.IdleRSS.Median+30<<20 || small.IdleRSS.Median < 8<<20 {
		t.Errorf("idle RSS median small %.0f MiB, big %.0f MiB; they touch 8 and 48 MiB", small.IdleRSS.Median.MiB(), big.IdleRSS.Median.MiB())
	}
	if len(lines) != 6 || !strings.Contains(lines[0], "warm-up") {
		t.Errorf("progress lines %q", lines)
	}
}

// The suite asks a stack over its wire: an h2c stack that refuses
// HTTP/1.1, and a TLS stack trusted through the run's throwaway CA, both
// answer the health path and the first request; the TLS one is refused
// when its CA is not given.
func TestRunOverTheStacksWire(t *testing.T) {
	h2c := helperStack(t, "h2c", "WIRE=h2c")
	h2c.Protocol = "h2c"
	ca, err := load.WriteThrowawayCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(ca.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	secure := helperStack(t, "tls", "TLS_CERT_FILE="+ca.CertFile, "TLS_KEY_FILE="+ca.KeyFile)
	secure.CA = caPEM
	res, err := Run(context.Background(), []Stack{h2c, secure}, Options{Starts: 1, Request: userCase, BootTimeout: 20 * time.Second, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Starts {
		if !st.FirstOK || st.FirstStatus != 200 || st.Boot <= 0 {
			t.Errorf("%s: boot %v, first request status %d ok %v (%s)", st.Stack, st.Boot, st.FirstStatus, st.FirstOK, st.FirstError)
		}
	}
	// Asked over HTTP/1.1 the h2c stack never answers its health path;
	// without its CA the TLS stack never passes the health check.
	plain := helperStack(t, "h2c-asked-http1", "WIRE=h2c")
	if _, err := Run(context.Background(), []Stack{plain}, Options{Starts: 1, Request: userCase, BootTimeout: 2 * time.Second, StopGrace: time.Second}); err == nil {
		t.Error("an h2c stack asked over HTTP/1.1 started")
	}
	untrusted := helperStack(t, "tls-untrusted", "TLS_CERT_FILE="+ca.CertFile, "TLS_KEY_FILE="+ca.KeyFile)
	if _, err := Run(context.Background(), []Stack{untrusted}, Options{Starts: 1, Request: userCase, BootTimeout: 2 * time.Second, StopGrace: time.Second}); err == nil {
		t.Error("a TLS stack asked without its CA started")
	}
}

func TestRunRecordsFailedFirstRequest(t *testing.T) {
	stacks := []Stack{helperStack(t, "broken", "STATUS=500")}
	res, err := Run(context.Background(), stacks, Options{Starts: 1, Request: userCase, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Starts[0]; st.FirstOK || st.FirstStatus != 500 {
		t.Errorf("start %+v", st)
	}
	if s := res.Stacks[0]; s.FirstFailed != 1 || s.FirstRequest.N != 0 {
		t.Errorf("summary %+v", s)
	}
	// It says which request got what, with the start of the body.
	want := `GET /users/4242 answered 500, not 200: {"id":4242}`
	if st, s := res.Starts[0], res.Stacks[0]; st.FirstError != want || s.FirstError != want {
		t.Errorf("first error %q (summary %q), want %q", st.FirstError, s.FirstError, want)
	}
}

// TestSetupRunsOnTheUnmeasuredStart: a first request that needs what a
// setup step makes (a row kept across processes) fails in every start
// without Setup, and succeeds in every measured start with it, which
// runs once, on the unmeasured start.
func TestSetupRunsOnTheUnmeasuredStart(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "user-4242")
	s := helperStack(t, "needs-setup", "NEEDS_MARK="+mark)
	res, err := Run(context.Background(), []Stack{s}, Options{Starts: 2, Request: userCase, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sum := res.Stacks[0]; sum.FirstFailed != 2 || !strings.Contains(sum.FirstError, "answered 404") || !strings.Contains(sum.FirstError, "run the setup first") {
		t.Fatalf("without setup: %+v", sum)
	}
	calls := 0
	s.Setup = func(ctx context.Context, port int) error {
		calls++
		resp, err := http.Post("http://127.0.0.1:"+strconv.Itoa(port)+"/mark", "text/plain", nil)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	os.Remove(mark)
	res, err = Run(context.Background(), []Stack{s}, Options{Starts: 2, Request: userCase, StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sum := res.Stacks[0]; sum.FirstFailed != 0 || calls != 1 {
		t.Errorf("with setup: %+v, setup ran %d times (want once)", sum, calls)
	}
}

func TestRunFailsOnStackThatDoesNotStart(t *testing.T) {
	s := helperStack(t, "nope")
	s.Command = "echo missing binary >&2; exit 127"
	_, err := Run(context.Background(), []Stack{s}, Options{Starts: 1, Request: userCase})
	if err == nil || !strings.Contains(err.Error(), "missing binary") || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Run = %v", err)
	}
}

func TestFirstRequestCase(t *testing.T) {
	saas, _ := workload.Builtin("saas-slice", workload.DefaultJWTSecret)
	if c, ok := FirstRequestCase(saas); !ok || c.Name != "user" {
		t.Errorf("saas-slice: %q", c.Name)
	}
	micro, _ := workload.Builtin("micro", "")
	if c, ok := FirstRequestCase(micro); !ok || c.Name != "get" {
		t.Errorf("micro: %q", c.Name)
	}
}

func abs(x Nanoseconds) Nanoseconds { return max(x, -x) }
