//go:build linux

package linux

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is this process's CPU time, every thread's, from the kernel.
func processCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// A thread that exits takes its time out of the threads' sum; ExactCPU
// then says it has no exact figure rather than a sum short of it. The
// thread exits in a child (this test binary again), so that this process
// keeps its exact figure for the other tests.
func TestExactCPUAfterAThreadExits(t *testing.T) {
	if os.Getenv("STACKBENCH_EXITING_THREAD") == "1" {
		exitAThread()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestExactCPUAfterAThreadExits$")
	cmd.Env = append(os.Environ(), "STACKBENCH_EXITING_THREAD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "exited\n" {
		t.Fatalf("the child: %q, %v", line, err)
	}
	var r Reader
	p, ok := r.Read(cmd.Process.Pid)
	if !ok {
		t.Fatal("read the child")
	}
	if ns, ok := r.ExactCPU(p); ok {
		t.Fatalf("threads' sum %v against ticks %v after a thread that burned 400 ms exited: still called exact", time.Duration(ns), time.Duration(p.OwnTicks*tickNanos))
	}
}

// exitAThread burns 400 ms on a thread of its own (not the main one),
// which then exits, says so on stdout, and waits to be killed.
func exitAThread() {
	pid := os.Getpid()
	for {
		exited := make(chan bool)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if unix.Gettid() == pid {
				exited <- false // the main thread is kept, not ended: try another
				return
			}
			for t0 := time.Now(); time.Since(t0) < 400*time.Millisecond; {
			}
			exited <- true
		}()
		if <-exited {
			break
		}
	}
	// The runtime ends the thread after the goroutine returns: wait until
	// its task is gone.
	for range 500 {
		ents, _ := os.ReadDir("/proc/self/task")
		var r Reader
		self, _ := r.Read(pid)
		if len(ents) == self.Threads && time.Duration(self.OwnTicks*tickNanos) >= 400*time.Millisecond {
			if sum, ok := r.threadsCPU(pid); ok && sum < self.OwnTicks*tickNanos-exitedSlack {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.Stdout.WriteString("exited\n")
	time.Sleep(time.Minute)
}

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
// is finer than a tick; a multi-threaded one (this test binary) gets the
// sum of its threads, which the kernel's own process clock confirms.
func TestExactCPU(t *testing.T) {
	var r Reader
	self, ok := r.Read(os.Getpid())
	if !ok {
		t.Fatal("read self")
	}
	if self.Threads < 2 {
		t.Fatalf("the test binary has %d thread(s); the multi-threaded case needs more", self.Threads)
	}
	// Two goroutines burn CPU on their threads while the process clock
	// (CLOCK_PROCESS_CPUTIME_ID: every thread, exact) and the threads'
	// sum are read side by side.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for x := 0; ; x++ {
				if x%1000 == 0 {
					select {
					case <-stop:
						return
					default:
					}
				}
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	for i := range 5 {
		before := processCPU()
		self, _ = r.Read(os.Getpid())
		ns, ok := r.ExactCPU(self)
		after := processCPU()
		if !ok {
			t.Fatalf("sample %d: no exact CPU for this process of %d threads", i, self.Threads)
		}
		// The threads' sum is read between the two clock readings; the
		// listing takes a moment, in which the burners run on.
		if d := time.Duration(ns); d < before-time.Millisecond || d > after+time.Millisecond {
			t.Errorf("sample %d: threads' sum %v, outside the process clock's %v … %v", i, d, before, after)
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
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
