//go:build linux

package linux

import (
	"os"
	"os/exec"
	"testing"
)

// openFiles counts this process's open descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// Held files read what a fresh open reads, let a process that exited go
// (no stale figure from its open file), and are closed by Sweep when not
// read since the last, and by Release.
func TestHeldReads(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	files0 := openFiles(t)

	var plain, held Reader
	held.Hold(true)
	for i := range 3 {
		a, ok1 := plain.Read(pid)
		b, ok2 := held.Read(pid)
		if !ok1 || !ok2 || a.PID != b.PID || a.StartTicks != b.StartTicks || a.PPID != b.PPID {
			t.Fatalf("read %d: plain %+v %v, held %+v %v", i, a, ok1, b, ok2)
		}
		kids, ok := held.Children(b, nil)
		if !ok || len(kids) != 0 {
			t.Fatalf("read %d: children of sleep: %v %v", i, kids, ok)
		}
	}
	if n := len(held.held); n != 2 {
		t.Fatalf("%d files held after reading one process's stat and children, want 2", n)
	}
	if got := openFiles(t); got != files0+2 {
		t.Errorf("%d descriptors open, want %d", got, files0+2)
	}
	self, ok := held.Read(os.Getpid())
	if !ok || self.PID != os.Getpid() {
		t.Fatalf("read self: %+v %v", self, ok)
	}
	held.Sweep() // all three were read since the start: kept
	if n := len(held.held); n != 3 {
		t.Fatalf("%d files held after a sweep of files all read, want 3", n)
	}
	held.Read(pid)
	held.Sweep() // this process's stat was not read since: closed
	if n := len(held.held); n != 1 {
		t.Fatalf("%d files held after a sweep, want 1 (sleep's stat)", n)
	}

	cmd.Process.Kill()
	cmd.Wait()
	if p, ok := held.Read(pid); ok {
		t.Fatalf("a reaped process read through its held file: %+v", p)
	}
	if n := len(held.held); n != 0 {
		t.Errorf("%d files held after the process went, want 0", n)
	}
	files1 := openFiles(t) // Wait closed the pidfd os/exec held
	held.Read(os.Getpid())
	if got := openFiles(t); got != files1+1 {
		t.Errorf("%d descriptors open holding one file, want %d", got, files1+1)
	}
	held.Release()
	if got := openFiles(t); got != files1 {
		t.Errorf("%d descriptors open after Release, want %d", got, files1)
	}
}
