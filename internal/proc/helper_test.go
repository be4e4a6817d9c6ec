package proc

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
)

// The test binary doubles as the child programs of these tests: with
// STACKBENCH_PROC_HELPER set, TestMain runs that helper instead of tests.
const helperEnv = "STACKBENCH_PROC_HELPER"

// helperLifetime bounds every helper, so a failed test cannot leave one
// running for long.
const helperLifetime = 60 * time.Second

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		go func() { time.Sleep(helperLifetime); os.Exit(9) }()
		runHelper(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runHelper(mode string) {
	switch mode {
	case "server":
		helperServer()
	case "sleeper":
		if os.Getenv("IGNORE_TERM") == "1" {
			signal.Ignore(syscall.SIGTERM)
			fmt.Println("ignoring SIGTERM") // the parent waits for it
		}
		time.Sleep(helperLifetime)
	case "listen":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
		waitStdinEOF()
	case "burn":
		helperBurn()
	case "alloc":
		helperAlloc()
	case "hog":
		for {
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", mode)
		os.Exit(2)
	}
}

// helperServer serves /health after START_DELAY_MS; /exit exits with
// status 3; /unlisten closes the listener. With FORK=1 it first starts two
// children that ignore SIGTERM, one of which leaves the process group.
// Each child is named once it ignores SIGTERM: named as soon as it was
// started, a child a busy host had not yet run that far died of the
// SIGTERM a test sends to show that only SIGKILL stops it.
func helperServer() {
	if os.Getenv("FORK") == "1" {
		for _, setsid := range []bool{false, true} {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), helperEnv+"=sleeper", "IGNORE_TERM=1")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
			out, err := cmd.StdoutPipe()
			if err == nil {
				err = cmd.Start()
			}
			if err != nil {
				fmt.Println("fork failed:", err)
				os.Exit(1)
			}
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ignoring SIGTERM\n" {
				fmt.Printf("child %d: %q, %v; want it ignoring SIGTERM\n", cmd.Process.Pid, line, err)
				os.Exit(1)
			}
			fmt.Println("child", cmd.Process.Pid)
		}
	}
	if ms, _ := strconv.Atoi(os.Getenv("START_DELAY_MS")); ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Println("listen failed:", err)
		os.Exit(1)
	}
	fmt.Println("listening")
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	mux.HandleFunc("/exit", func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("exiting on request")
		os.Exit(3)
	})
	mux.HandleFunc("/unlisten", func(w http.ResponseWriter, r *http.Request) {
		l.Close()
		w.Write([]byte("closed"))
	})
	http.Serve(l, mux)
	time.Sleep(helperLifetime) // after /unlisten: alive, not listening
}

// helperBurn waits for a line on stdin, burns BURN_MS of its own CPU time
// (getrusage, not wall time, so machine load does not matter), prints the
// CPU it used in microseconds, then waits for stdin to close unless EXIT=1.
func helperBurn() {
	in := bufio.NewReader(os.Stdin)
	in.ReadString('\n')
	want := mustAtoi(os.Getenv("BURN_MS")) * 1000
	start := rusageMicros()
	x := 1.0
	for rusageMicros()-start < int64(want) {
		for i := 0; i < 100000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	fmt.Println("burned", rusageMicros()-start, x > 0)
	if os.Getenv("EXIT") == "1" {
		return
	}
	waitStdinEOF()
}

// helperAlloc allocates ALLOC_MB, writes every page, prints "touched" and
// waits for stdin to close.
func helperAlloc() {
	b := make([]byte, mustAtoi(os.Getenv("ALLOC_MB"))<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	fmt.Println("touched")
	waitStdinEOF()
	fmt.Println(b[len(b)-4096])
}

func rusageMicros() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano()/1000 + ru.Stime.Nano()/1000
}

func waitStdinEOF() {
	buf := make([]byte, 64)
	for {
		if _, err := os.Stdin.Read(buf); err != nil {
			return
		}
	}
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		panic("helper: bad number " + strconv.Quote(s))
	}
	return n
}

// helperCommand is a shell command that runs the test binary as a helper.
func helperCommand() string {
	return "exec '" + strings.ReplaceAll(os.Args[0], "'", `'\''`) + "'"
}

// serverSpec is a Spec for the helper server on a free port.
func serverSpec(t *testing.T, env ...string) Spec {
	t.Helper()
	port, err := netutil.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{
		Name:        "helper",
		Dir:         t.TempDir(),
		Command:     helperCommand(),
		Env:         append([]string{helperEnv + "=server", "PORT=" + strconv.Itoa(port)}, env...),
		Port:        port,
		HealthPath:  "/health",
		LogPath:     t.TempDir() + "/helper.log",
		BootTimeout: 20 * time.Second,
	}
}

// startHelper runs a helper as a direct child with pipes to its stdin and
// stdout; the test's cleanup kills it.
type helperProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startHelper(t *testing.T, mode string, env ...string) *helperProc {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	h := &helperProc{cmd: cmd, stdin: inW, out: bufio.NewReader(outR)}
	t.Cleanup(func() {
		inW.Close()
		cmd.Process.Kill()
		cmd.Wait()
		outR.Close()
	})
	return h
}

// line reads one line of the helper's output.
func (h *helperProc) line(t *testing.T) string {
	t.Helper()
	s, err := h.out.ReadString('\n')
	if err != nil {
		t.Fatalf("helper pid %d: read its output: %v", h.cmd.Process.Pid, err)
	}
	return strings.TrimSpace(s)
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	var r statReader
	st, ok := r.read(pid)
	return ok && st.Alive
}

func (h *helperProc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
		t.Fatalf("write to helper pid %d: %v", h.cmd.Process.Pid, err)
	}
}
