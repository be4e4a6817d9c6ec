package proc

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// A part of a tree by process title: a shell with two busy children, one
// titled as a backend of database "mine" and one of "theirs" (as
// PostgreSQL titles its backends). The part counts the first alone; the
// whole tree counts both; foreign CPU does not count the part twice.
func TestPartOfTreeByTitle(t *testing.T) {
	// Busy loops without a fork (killed with the group at the end).
	script := `exec -a "postgres: u mine 127.0.0.1(1) idle" sh -c 'while :; do :; done' &
exec -a "postgres: u theirs 127.0.0.1(2) idle" sh -c 'while :; do :; done' &
wait`
	cmd := exec.Command("bash", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	time.Sleep(100 * time.Millisecond) // both children titled
	mine := func(title string) bool {
		f := strings.Fields(title)
		return len(f) >= 3 && f[0] == "postgres:" && f[2] == "mine"
	}
	var minePID int
	for _, pid := range TreePIDs(cmd.Process.Pid) {
		if mine(local.OS.Cmdline(pid)) {
			minePID = pid
		}
	}
	if minePID == 0 {
		t.Fatal("no child titled as a backend of mine")
	}
	var r statReader
	ticks := func() int64 {
		st, ok := r.read(minePID)
		if !ok {
			t.Fatalf("pid %d gone", minePID)
		}
		return st.OwnTicks
	}
	s := NewSampler(100*time.Millisecond, TreeGroup("database", cmd.Process.Pid), PartOfTree("database_own", cmd.Process.Pid, mine))
	before := ticks()
	s.Start()
	time.Sleep(800 * time.Millisecond)
	w := s.Stop()
	after := ticks()
	all, _ := w.Group("database")
	own, _ := w.Group("database_own")
	if !own.Part || all.Part || own.Processes != 1 || all.Processes < 3 {
		t.Fatalf("groups %+v and %+v; want the part of one process, the tree of three or more", own, all)
	}
	// The part is that one process's CPU over the window (its own ticks
	// read just outside the window bound it), and less than the tree's.
	tick := float64(tickNanos) / 1e9
	lo, hi := 0.8*float64(after-before)*tick-3*tick, float64(after-before)*tick+2*tick
	if after-before < 3 || own.CPUSeconds < lo || own.CPUSeconds > hi || own.CPUSeconds >= all.CPUSeconds {
		t.Errorf("part %.3f CPU-s; its process used %.3f s around the window; the tree %.3f", own.CPUSeconds, float64(after-before)*tick, all.CPUSeconds)
	}
	if w.HostBusyCores+0.05 < all.Cores || w.ForeignCores > w.HostBusyCores-all.Cores+0.05 {
		t.Errorf("host busy %.2f, tree %.2f, foreign %.2f: the part must not be subtracted twice", w.HostBusyCores, all.Cores, w.ForeignCores)
	}
}

// The halves split a group's CPU at the window's middle, interpolating
// between the samples around it.
func TestHalves(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int, ns int64) cpuAt {
		return cpuAt{at: t0.Add(time.Duration(ms) * time.Millisecond), nanos: ns}
	}
	// 0–400 ms: 300 ms of CPU, then 100 ms over the last 600 ms; middle
	// at 500 ms, a sixth of the way from 400 to 1000.
	f, s := halves([]cpuAt{at(0, 0), at(400, 300e6), at(1000, 400e6)})
	if d := f - (0.3 + 0.1/6); d > 1e-6 || d < -1e-6 || s < 0.0833 || s > 0.0834 {
		t.Errorf("halves %.4f and %.4f; want 0.3167 and 0.0833", f, s)
	}
	if f, s := halves([]cpuAt{at(0, 0), at(1000, 1e9)}); f != 0 || s != 0 {
		t.Errorf("two samples: %g %g; want none", f, s)
	}
}
