package proc

import (
	"context"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
)

func startServer(t *testing.T, s Spec) *Process {
	t.Helper()
	p, err := Start(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	return p
}

func get(t *testing.T, port int, path string) {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + path)
	if err == nil {
		resp.Body.Close()
	}
}

// A server that forks two children that ignore SIGTERM, one of which
// leaves the process group: Stop must end all three.
func TestStopKillsForkedChildren(t *testing.T) {
	p := startServer(t, serverSpec(t, "FORK=1"))
	tree := TreePIDs(p.PID())
	if len(tree) != 3 {
		t.Fatalf("TreePIDs(%d) = %v, want the server and its two children; log:\n%s", p.PID(), tree, p.LogTail())
	}
	var children []int
	for _, line := range strings.Split(p.LogTail(), "\n") {
		if pid, ok := strings.CutPrefix(line, "child "); ok {
			children = append(children, mustAtoi(pid))
		}
	}
	if len(children) != 2 {
		t.Fatalf("log names children %v, want 2", children)
	}
	for _, c := range children {
		if !running(c) {
			t.Fatalf("child %d is not running before Stop", c)
		}
	}
	start := time.Now()
	if err := p.Stop(300 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, pid := range tree {
		if running(pid) {
			t.Errorf("pid %d still runs after Stop (an orphan)", pid)
		}
	}
	// The children ignore SIGTERM, so they can only have died by SIGKILL
	// after the grace period.
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("Stop took %v, less than the grace period, yet children ignore SIGTERM", took)
	}
	if err := p.Check(); err == nil {
		t.Error("Check after Stop returned nil")
	}
}

func TestCheckDetectsDeadServer(t *testing.T) {
	p := startServer(t, serverSpec(t))
	if err := p.Check(); err != nil {
		t.Fatalf("Check of a healthy server: %v", err)
	}
	get(t, p.Port(), "/exit")
	deadline := time.Now().Add(10 * time.Second)
	var err error
	for err == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		err = p.Check()
	}
	if err == nil {
		t.Fatal("Check still passes 10 s after the server exited")
	}
	for _, want := range []string{"died", "exit status 3", "exiting on request"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %q lacks %q", err, want)
		}
	}
}

// A stale server on the port (trap T11): ours stopped listening and
// another process took the port. Check must name the other process.
func TestCheckDetectsForeignListener(t *testing.T) {
	p := startServer(t, serverSpec(t))
	get(t, p.Port(), "/unlisten")
	err := p.Check()
	if err == nil || !strings.Contains(err.Error(), "no longer listens") {
		t.Fatalf("Check after the server closed its listener = %v, want 'no longer listens'", err)
	}
	l, lerr := listenOn(p.Port())
	if lerr != nil {
		t.Fatal(lerr)
	}
	defer l.Close()
	err = p.Check()
	if err == nil || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("Check with the test process on the port = %v, want it named (pid %d)", err, os.Getpid())
	}
}

func TestStartRefusesHeldPort(t *testing.T) {
	h := startHelper(t, "listen")
	port := mustAtoi(h.line(t))
	pid, cmdline, ok := PortHolder(port)
	if !ok || pid != h.cmd.Process.Pid {
		t.Fatalf("PortHolder(%d) = %d, %q, %v; want pid %d", port, pid, cmdline, ok, h.cmd.Process.Pid)
	}
	s := serverSpec(t)
	s.Port = port
	_, err := Start(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "in use by pid "+strconv.Itoa(pid)) {
		t.Fatalf("Start on a held port = %v, want it to name pid %d", err, pid)
	}
	if _, _, ok := PortHolder(s.Port); !ok {
		t.Fatal("the holder vanished; the refusal must not touch it")
	}
}

func TestBootDurationCoversStartDelay(t *testing.T) {
	const delay = 300 * time.Millisecond
	p := startServer(t, serverSpec(t, "START_DELAY_MS="+strconv.Itoa(int(delay/time.Millisecond))))
	if b := p.BootDuration(); b < delay || b > delay+10*time.Second || p.ReadyAt().After(time.Now()) {
		t.Errorf("BootDuration = %v for a server that sleeps %v before listening", b, delay)
	}
}

func TestStartReportsEarlyExit(t *testing.T) {
	s := serverSpec(t)
	s.Command = "echo cannot find the config >&2; exit 7"
	_, err := Start(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "exited before answering") || !strings.Contains(err.Error(), "cannot find the config") {
		t.Fatalf("Start of a command that exits = %v, want the exit and the log tail", err)
	}
}

func TestStartTimesOut(t *testing.T) {
	s := serverSpec(t, "START_DELAY_MS=30000")
	s.BootTimeout = 300 * time.Millisecond
	_, err := Start(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "boot timeout") {
		t.Fatalf("Start of a server that never listens = %v, want a boot timeout", err)
	}
	if tree := TreePIDs(os.Getpid()); len(tree) != 1 {
		t.Errorf("the failed start left children behind: our tree is %v", tree)
	}
}

func listenOn(port int) (net.Listener, error) {
	return net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
}

// A stack started by a plain command must be the root of its own tree: a
// /bin/sh (dash) left as its parent was counted in the stack's RSS (~1.7
// MiB, ~9 % of a small Go server's) and process count.
func TestSimpleStartCommandLeavesNoShellInTheTree(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(exe, shellSyntax+" ") {
		t.Fatalf("test binary path %q needs quoting; the test needs a plain one", exe)
	}
	s := serverSpec(t)
	s.Command = exe // as a stackbench.yaml writes it: start: ./bin/server
	p := startServer(t, s)
	if tree := TreePIDs(p.PID()); len(tree) != 1 || tree[0] != p.PID() {
		t.Errorf("tree of %q is %v, want the server alone (pid %d)", s.Command, tree, p.PID())
	}
	if got, err := os.Readlink("/proc/" + strconv.Itoa(p.PID()) + "/exe"); err != nil || got != exe {
		t.Errorf("the stack's root runs %q (%v), want %q, not a shell", got, err, exe)
	}
}

func TestShellCommand(t *testing.T) {
	for cmd, want := range map[string]string{
		"./bin/server":                   "exec ./bin/server",
		"node dist/main.js --port=8080":  "exec node dist/main.js --port=8080",
		"exec ./bin/server":              "exec ./bin/server",
		"cd api && ./server":             "cd api && ./server",
		"PORT=9 ./server":                "PORT=9 ./server",
		"./server > out.log":             "./server > out.log",
		"java -jar 'app with space.jar'": "java -jar 'app with space.jar'",
		"./server $FLAGS":                "./server $FLAGS",
		"ulimit -n 65536":                "ulimit -n 65536",
		"./a\n./b":                       "./a\n./b",
		"":                               "",
	} {
		if got := shellCommand(cmd); got != want {
			t.Errorf("shellCommand(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// A server that ignores PORT and listens elsewhere (as a TechEmpower entry
// listens on its config's 8080) fails its boot with the port it chose
// named, not as a slow starter.
func TestStartNamesTheWrongPort(t *testing.T) {
	s := serverSpec(t)
	other, err := netutil.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s.Env = append(s.Env, "PORT="+strconv.Itoa(other)) // the later value wins
	s.BootTimeout = time.Second
	_, err = Start(context.Background(), s)
	want := "it listens on port " + strconv.Itoa(other) + ", not on the port it was given (PORT=" + strconv.Itoa(s.Port) + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Start of a server on another port = %v, want %q", err, want)
	}
}
