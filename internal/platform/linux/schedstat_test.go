//go:build linux

package linux

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestParseSchedstat(t *testing.T) {
	for _, c := range []struct {
		in   string
		ns   int64
		okay bool
	}{
		{"123456789 2000 17\n", 123456789, true},
		{"0 0 0\n", 0, true},
		{"", 0, false},
		{" 12 3\n", 0, false},
		{"12x 3\n", 0, false},
		{"99999999999999999999999 1 1\n", 0, false},
	} {
		ns, ok := parseSchedstat([]byte(c.in))
		if ns != c.ns && c.okay || ok != c.okay {
			t.Errorf("%q: %d %v, want %d %v", c.in, ns, ok, c.ns, c.okay)
		}
	}
}

// ExactCPU agrees with the tick figure for a single-threaded process and
// is finer than a tick; a multi-threaded one (this test binary) has none.
func TestExactCPU(t *testing.T) {
	var r Reader
	self, ok := r.Read(os.Getpid())
	if !ok {
		t.Fatal("read self")
	}
	if self.Threads > 1 {
		if _, ok := r.ExactCPU(self); ok {
			t.Errorf("a process of %d threads has an exact figure from its main thread's schedstat", self.Threads)
		}
	}
	// A single-threaded child that burns CPU: sh's busy loop.
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	time.Sleep(300 * time.Millisecond)
	p, ok := r.Read(cmd.Process.Pid)
	if !ok || p.Threads != 1 {
		t.Fatalf("the child: %+v, %v; want one thread", p, ok)
	}
	ns, ok := r.ExactCPU(p)
	if !ok || ns <= 0 {
		t.Fatalf("no exact CPU for a single-threaded process: %d %v", ns, ok)
	}
	ticks := time.Duration(p.OwnTicks) * (time.Second / time.Duration(OS{}.TicksPerSecond()))
	// utime+stime are the same run time truncated to ticks, read a moment
	// earlier: the exact figure is at or above it, by a tick and a little.
	if d := time.Duration(ns) - ticks; d < -5*time.Millisecond || d > 40*time.Millisecond {
		t.Errorf("exact %v, ticks %v", time.Duration(ns), ticks)
	}
}
