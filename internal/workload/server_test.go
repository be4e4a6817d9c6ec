package workload

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// buildReference builds apps/nethttp-pgx into dir and returns the binary.
func buildReference(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "server")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join("..", "..", "apps", "nethttp-pgx")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build apps/nethttp-pgx: %v\n%s", err, out)
	}
	return bin
}

// startReference starts the reference server for workload (saas-slice or
// micro) on a free port and returns its base URL; the test's cleanup stops
// it with SIGTERM and fails the test if it does not exit cleanly.
func startReference(t *testing.T, bin, workload, databaseURL string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PORT="+port, "DATABASE_URL="+databaseURL,
		"JWT_SECRET="+DefaultJWTSecret, "STACKBENCH_WORKLOAD="+workload)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the reference server: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("reference server exited with %v after SIGTERM; stderr:\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("reference server did not stop within 10 s of SIGTERM")
		}
	})
	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("reference server exited during start: %v; stderr:\n%s", err, stderr.String())
		default:
		}
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			return base
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("reference server did not answer /health within 30 s; stderr:\n%s", stderr.String())
	return ""
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func logFailures(t *testing.T, r StackResult) {
	t.Helper()
	for _, f := range r.Failures() {
		t.Logf("%s", f.line("FAIL"))
	}
}

func runAgainst(t *testing.T, w *Workload, base, stack, databaseURL string) StackResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return RunChecks(ctx, w, base, RunOptions{Stack: stack, DatabaseURL: databaseURL})
}
