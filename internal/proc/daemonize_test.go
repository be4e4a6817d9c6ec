package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// sleepers returns the pids of `sleep arg` processes that are alive.
func sleepers(arg string) []int {
	var out []int
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Equal(b, []byte("sleep\x00"+arg+"\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			if running(pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// A start command that daemonizes a child (a new session, its parent
// gone at once, so neither the group nor the tree holds it) leaves
// nothing behind once the stack is stopped.
func TestStopKillsWhatTheStackDaemonized(t *testing.T) {
	arg := strconv.Itoa(40000 + os.Getpid()%20000)
	s := serverSpec(t)
	s.Command = "(setsid sleep " + arg + " &); " + s.Command
	p := startServer(t, s)
	deadline := time.Now().Add(5 * time.Second)
	for len(sleepers(arg)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	daemons := sleepers(arg)
	if len(daemons) != 1 {
		t.Fatalf("sleep %s: pids %v, want the one the start command daemonized", arg, daemons)
	}
	t.Cleanup(func() {
		for _, pid := range sleepers(arg) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(2 * time.Second); len(sleepers(arg)) > 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if left := sleepers(arg); len(left) > 0 {
		t.Errorf("sleep %s (pids %v) outlived the stopped stack", arg, left)
	}
}
