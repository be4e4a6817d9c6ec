package proc

import (
	"bufio"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
)

const burnMS = 500

// burned parses the helper's "burned <µs> true" line into seconds.
func burned(t *testing.T, line string) float64 {
	t.Helper()
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "burned" {
		t.Fatalf("helper said %q, want 'burned <µs>'", line)
	}
	return float64(mustAtoi(f[1])) / 1e6
}

// within10 checks got against the CPU the child measured with getrusage,
// allowing 10 % plus two clock ticks (the resolution of /proc/<pid>/stat)
// and the helper's own start-up and exit.
func within10(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 0.10*want+0.02 {
		t.Errorf("%s: sampler counted %.3f CPU s, the child measured %.3f s with getrusage", what, got, want)
	}
}

func TestSamplerCPUOfLiveChild(t *testing.T) {
	h := startHelper(t, "burn", "BURN_MS="+strconv.Itoa(burnMS))
	s := NewSampler(50*time.Millisecond, TreeGroup("burner", h.cmd.Process.Pid))
	s.Start()
	h.send(t, "go")
	want := burned(t, h.line(t))
	w := s.Stop()
	g, _ := w.Group("burner")
	within10(t, "live child", g.CPUSeconds, want)
	if g.Cores <= 0 || g.Cores > 1.2 || g.Processes != 1 {
		t.Errorf("group stats %+v for one single-threaded burner", g)
	}
	if w.HostBusyCores+0.05 < g.Cores {
		t.Errorf("host busy %.2f cores is less than the burner's %.2f", w.HostBusyCores, g.Cores)
	}
	if w.Suspended || w.Samples < 2 || w.Wall <= 0 || w.SamplerCPUSeconds <= 0 {
		t.Errorf("window %+v", w)
	}
}

// A burner started by a shell that waits for it: the burner exits inside
// the window and its CPU moves into the shell's cutime, which must count.
func TestSamplerCPUOfChildWaitedForInWindow(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `"$0"; echo shell-done; sleep 30`, os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=burn", "BURN_MS="+strconv.Itoa(burnMS), "EXIT=1")
	h := startCmd(t, cmd)
	waitTree(t, cmd.Process.Pid, 2)
	s := NewSampler(50*time.Millisecond, TreeGroup("shell", cmd.Process.Pid))
	s.Start()
	h.send(t, "go")
	want := burned(t, h.line(t))
	if l := h.line(t); l != "shell-done" {
		t.Fatalf("shell said %q", l)
	}
	w := s.Stop()
	g, _ := w.Group("shell")
	within10(t, "child waited for by the tree root", g.CPUSeconds, want)
}

// The root exits mid-window and is reaped by us, outside the group: its
// CPU up to its last sample stays counted and nothing goes negative.
func TestSamplerCPUOfRootExitingInWindow(t *testing.T) {
	h := startHelper(t, "burn", "BURN_MS="+strconv.Itoa(burnMS), "EXIT=1")
	s := NewSampler(20*time.Millisecond, TreeGroup("burner", h.cmd.Process.Pid))
	s.Start()
	h.send(t, "go")
	want := burned(t, h.line(t))
	h.cmd.Wait()
	w := s.Stop()
	g, _ := w.Group("burner")
	// The last sample can miss up to one interval (20 ms) of CPU.
	within10(t, "root exited", g.CPUSeconds, want)
}

func TestSamplerRSS(t *testing.T) {
	const allocMB = 64
	h := startHelper(t, "alloc", "ALLOC_MB="+strconv.Itoa(allocMB))
	if l := h.line(t); l != "touched" {
		t.Fatalf("helper said %q", l)
	}
	s := NewSampler(20*time.Millisecond, TreeGroup("alloc", h.cmd.Process.Pid))
	s.Start()
	time.Sleep(100 * time.Millisecond)
	w := s.Stop()
	g, _ := w.Group("alloc")
	const mb = 1 << 20
	// The Go runtime of the helper adds a few MB on top of the touched bytes.
	if g.RSSPeakBytes < allocMB*mb || !raceEnabled && g.RSSPeakBytes > (allocMB+40)*mb {
		t.Errorf("RSS peak %d MB, the child touched %d MB", g.RSSPeakBytes/mb, allocMB)
	}
	if g.RSSMeanBytes < allocMB*mb || g.RSSMeanBytes > g.RSSPeakBytes {
		t.Errorf("RSS mean %d MB, peak %d MB, touched %d MB", g.RSSMeanBytes/mb, g.RSSPeakBytes/mb, allocMB)
	}
	if w.Samples < 3 {
		t.Errorf("%d samples in 100 ms at a 20 ms interval", w.Samples)
	}
}

func TestSamplerSelfAndPIDsGroups(t *testing.T) {
	h := startHelper(t, "burn", "BURN_MS=200")
	pid := h.cmd.Process.Pid
	s := NewSampler(50*time.Millisecond, SelfGroup("harness"), Group{Name: "listed", PIDs: func() []int { return []int{pid} }})
	s.Start()
	h.send(t, "go")
	want := burned(t, h.line(t))
	w := s.Stop()
	listed, _ := w.Group("listed")
	within10(t, "PIDs group", listed.CPUSeconds, want)
	harness, _ := w.Group("harness")
	if harness.Processes != 1 || harness.RSSPeakBytes <= 0 {
		t.Errorf("harness group %+v", harness)
	}
	// Foreign CPU from the ticks is what the host was busy with beyond the
	// groups, never negative: groups + foreign is the host's busy CPU, or
	// the groups' own when they read higher than the host (the ticks are
	// sampled, the groups' CPU is exact). The foreign CPU the gate reads
	// is the larger of it and the process-by-process figure.
	own := harness.Cores + listed.Cores
	if w.ForeignTickCores < 0 || math.Abs(own+w.ForeignTickCores-max(w.HostBusyCores, own)) > 1e-9 {
		t.Errorf("groups %.3f + foreign %.3f cores, host busy %.3f", own, w.ForeignTickCores, w.HostBusyCores)
	}
	if w.ForeignProcessCores < 0 || w.ForeignCores != max(w.ForeignTickCores, w.ForeignProcessCores) {
		t.Errorf("foreign %.3f cores, from the ticks %.3f, process by process %.3f", w.ForeignCores, w.ForeignTickCores, w.ForeignProcessCores)
	}
}

// Foreign CPU read process by process: a neighbour outside every group —
// a shell whose burner exits inside the window, waited for by the shell —
// counts in full, and a group's own busy process never does. This is what
// the host's busy ticks could not show beside a server of short bursts.
func TestForeignCPUReadProcessByProcess(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `"$0"; echo shell-done; sleep 30`, os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=burn", "BURN_MS="+strconv.Itoa(burnMS), "EXIT=1")
	neighbour := startCmd(t, cmd)
	waitTree(t, cmd.Process.Pid, 2)
	mine := startHelper(t, "burn", "BURN_MS="+strconv.Itoa(burnMS))

	w := newWatch([]Group{TreeGroup("server", mine.cmd.Process.Pid), SelfGroup("harness")}, host.ReadClocks())
	defer w.release()
	w.sample(true)
	neighbour.send(t, "go")
	want := burned(t, neighbour.line(t))
	if l := neighbour.line(t); l != "shell-done" {
		t.Fatalf("shell said %q", l)
	}
	mine.send(t, "go")
	ownBurn := burned(t, mine.line(t))
	w.sample(true)

	if _, ok := w.others.members[mine.cmd.Process.Pid]; ok {
		t.Errorf("the server's process is counted as foreign")
	}
	if _, ok := w.others.members[os.Getpid()]; ok {
		t.Errorf("the harness is counted as foreign")
	}
	if _, ok := w.others.members[cmd.Process.Pid]; !ok {
		t.Errorf("the neighbour's shell is not among the foreign processes")
	}
	got := float64(w.others.nanos()) / 1e9
	if got < 0.9*want-0.02 {
		t.Errorf("foreign CPU %.3f s; the neighbour alone burned %.3f s", got, want)
	}
	stats := w.stats(time.Second)
	server, _ := stats.Group("server")
	within10(t, "the server beside the neighbour", server.CPUSeconds, ownBurn)
}

// startCmd starts cmd with a stdin and stdout pipe; cleanup kills its group.
func startCmd(t *testing.T, cmd *exec.Cmd) *helperProc {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range TreePIDs(cmd.Process.Pid) {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		in.Close()
		cmd.Wait()
	})
	return &helperProc{cmd: cmd, stdin: in, out: bufio.NewReader(out)}
}

// waitTree waits until the tree of root has n processes.
func waitTree(t *testing.T, root, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(TreePIDs(root)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("tree of %d has %v, want %d processes", root, TreePIDs(root), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The children-file walk of the intermediate samples finds the same tree
// as the full scan of the snapshots, across a multi-threaded process.
func TestWalkTreeMatchesScan(t *testing.T) {
	if !childrenSupported {
		t.Fatal("this kernel lacks /proc/<pid>/task/<tid>/children; the sampler falls back to full scans, which the other tests cover")
	}
	cmd := exec.Command("/bin/sh", "-c", `"$0" & "$0" & wait`, os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=sleeper")
	startCmd(t, cmd)
	waitTree(t, cmd.Process.Pid, 3)
	want := TreePIDs(cmd.Process.Pid)
	w := newWatch(nil, host.ReadClocks())
	var got []int
	for _, st := range w.walkTree(cmd.Process.Pid, nil) {
		got = append(got, st.PID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("walkTree = %v, full scan = %v", got, want)
	}
}

func TestTreeRSSBytes(t *testing.T) {
	h := startHelper(t, "alloc", "ALLOC_MB=32")
	if l := h.line(t); l != "touched" {
		t.Fatalf("helper said %q", l)
	}
	if rss := TreeRSSBytes(h.cmd.Process.Pid); rss < 32<<20 || !raceEnabled && rss > 72<<20 {
		t.Errorf("TreeRSSBytes = %d MB for a child that touched 32 MB", rss>>20)
	}
	if rss := TreeRSSBytes(1 << 30); rss != 0 {
		t.Errorf("TreeRSSBytes of a missing pid = %d", rss)
	}
}

// A single-threaded process's CPU is counted exactly (its CPU clock), not
// in ticks of 10 ms: a sh busy loop's window is within a millisecond of
// what the platform reads for it at the two ends, where ticks alone could
// be up to a tick off at each end.
func TestSamplerCountsASingleThreadedProcessExactly(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var r statReader
	exactNow := func() float64 {
		st, ok := r.read(cmd.Process.Pid)
		if !ok {
			t.Fatal("the busy child is gone")
		}
		ns, ok := r.exactCPU(st)
		if !ok {
			t.Skipf("the platform has no exact CPU for a single-threaded process (%d threads)", st.Threads)
		}
		return float64(ns) / 1e9
	}
	before := exactNow()
	s := NewSampler(50*time.Millisecond, TreeGroup("sh", cmd.Process.Pid))
	s.Start()
	// At least 300 ms, and until the child has had 100 ms of CPU: on a
	// busy host (CI beside other packages) it got 41 ms in 300 ms.
	time.Sleep(300 * time.Millisecond)
	for deadline := time.Now().Add(5 * time.Second); exactNow()-before < 0.1 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	w := s.Stop()
	after := exactNow()
	g, _ := w.Group("sh")
	// The window lies inside [before, after]; the sampler's own reads at
	// its ends are a few hundred microseconds from ours.
	if g.CPUSeconds <= 0.5*(after-before) || g.CPUSeconds > after-before+0.001 {
		t.Errorf("sampler counted %.6f s; the child ran %.6f s between our two reads around the window", g.CPUSeconds, after-before)
	}
	if ticks := g.CPUSeconds * 100; math.Abs(ticks-math.Round(ticks)) < 1e-9 {
		t.Errorf("sampler counted %.6f s, a whole number of 10 ms ticks: not exact", g.CPUSeconds)
	}
}
