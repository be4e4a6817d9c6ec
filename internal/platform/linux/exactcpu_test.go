//go:build linux

package linux

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
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

// A thread that exits keeps its time in the process's clock: ExactCPU
// still gives an exact figure, and it holds the exited thread's 400 ms,
// which a sum of the live threads' schedstat (what this read before)
// leaves out. The thread exits in a child (this test binary again), so
// that this process keeps all its threads for the other tests.
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
	ns, ok := r.ExactCPU(p)
	if !ok {
		t.Fatalf("no exact CPU after a thread exited (ticks %v)", time.Duration(p.OwnTicks*tickNanos))
	}
	live, err := liveThreadsCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	ticks := p.OwnTicks * tickNanos
	if ns < ticks || ns > ticks+50*int64(time.Millisecond) {
		t.Errorf("exact %v against ticks %v read a moment before", time.Duration(ns), time.Duration(ticks))
	}
	if time.Duration(ns-live) < 350*time.Millisecond {
		t.Errorf("exact %v, live threads' sum %v: the exited thread's 400 ms are not in it", time.Duration(ns), time.Duration(live))
	}
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// liveThreadsCPU sums the run time of pid's live threads (the first field
// of each /proc/<pid>/task/<tid>/schedstat), in nanoseconds.
func liveThreadsCPU(pid int) (int64, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, task := range tasks {
		b, err := os.ReadFile(dir + task.Name() + "/schedstat")
		if err != nil {
			continue // exited since the listing
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, fmt.Errorf("%s/schedstat: %q", task.Name(), b)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, err
		}
		sum += ns
	}
	return sum, nil
}

// exitAThread burns 400 ms of CPU on a thread of its own (not the main one),
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
			// 400 ms of this thread's own CPU, not of the wall clock: on a
			// busy host a thread gets less than the wall time it spins.
			for threadCPU() < 400*time.Millisecond {
			}
			exited <- true
		}()
		if <-exited {
			break
		}
	}
	// The runtime ends the thread after the goroutine returns: wait until
	// its task is gone (the live threads' sum falls well below the
	// process's ticks).
	var r Reader
	for range 500 {
		self, _ := r.Read(pid)
		live, err := liveThreadsCPU(pid)
		if err == nil && time.Duration(self.OwnTicks*tickNanos) >= 400*time.Millisecond &&
			live < self.OwnTicks*tickNanos-int64(300*time.Millisecond) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.Stdout.WriteString("exited\n")
	time.Sleep(time.Minute)
}

// ExactCPU agrees with the tick figure for a single-threaded process and
// is finer than a tick; a multi-threaded one (this test binary) gets
// what its own process clock (CLOCK_PROCESS_CPUTIME_ID) reads.
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
	// read from inside (CLOCK_PROCESS_CPUTIME_ID) and from outside
	// (ExactCPU) side by side.
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
		// The process's clock is read from outside between two readings
		// from inside; the burners run on meanwhile.
		if d := time.Duration(ns); d < before-time.Millisecond || d > after+time.Millisecond {
			t.Errorf("sample %d: exact %v, outside this process's own clock's %v … %v", i, d, before, after)
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

// BenchmarkExactCPU reads this process's exact CPU (a Go test binary of
// several threads), as the sampler does for each process of a group at
// each sample.
func BenchmarkExactCPU(b *testing.B) {
	var r Reader
	self, ok := r.Read(os.Getpid())
	if !ok {
		b.Fatal("read self")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := r.ExactCPU(self); !ok {
			b.Fatal("no exact CPU")
		}
	}
	b.ReportMetric(float64(self.Threads), "threads")
}
