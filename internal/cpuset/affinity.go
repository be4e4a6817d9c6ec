package cpuset

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Affinity returns the CPUs this process may run on: its affinity mask (a
// cgroup cpuset is already part of it), not the host's CPU count.
func Affinity() (Set, error) {
	// This goroutine's own thread: never one that Start has narrowed to a
	// lane, since Start keeps such a thread locked to its own goroutine
	// (the main thread, os.Getpid(), could be that one for a moment).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		return nil, fmt.Errorf("read this process's CPU affinity: %w", err)
	}
	return fromMask(&mask), nil
}

func fromMask(m *unix.CPUSet) Set {
	var s Set
	for c := 0; c <= maxCPU; c++ {
		if m.IsSet(c) {
			s = append(s, c)
		}
	}
	return s
}

func (s Set) mask() unix.CPUSet {
	var m unix.CPUSet
	for _, c := range s {
		m.Set(c)
	}
	return m
}

// sysCPU is where the kernel describes each CPU's topology; tests point it
// elsewhere.
var sysCPU = "/sys/devices/system/cpu"

// Cores groups the CPUs of s by physical core, from the kernel's
// thread_siblings_list, in the order of their lowest CPU. A CPU whose
// topology cannot be read is a core of its own.
func Cores(s Set) []Set {
	var cores []Set
	seen := map[int]bool{}
	for _, c := range s {
		if seen[c] {
			continue
		}
		core := Of(c)
		b, err := os.ReadFile(filepath.Join(sysCPU, "cpu"+strconv.Itoa(c), "topology", "thread_siblings_list"))
		if err == nil {
			if sib, err := Parse(strings.TrimSpace(string(b))); err == nil && len(sib.Intersect(s)) > 0 {
				core = sib.Intersect(s).Union(core)
			}
		}
		for _, x := range core {
			seen[x] = true
		}
		cores = append(cores, core)
	}
	return cores
}

// Start starts cmd with its CPU affinity set to s, so that the process and
// every thread and child it ever makes inherit the lane: the calling
// goroutine's OS thread is locked, its own mask set to s, the child forked
// from that thread (a child inherits its parent thread's mask), and the
// thread's mask put back. An empty s starts cmd as it is.
func Start(cmd *exec.Cmd, s Set) error {
	if len(s) == 0 {
		return cmd.Start()
	}
	want := s.mask()
	done := make(chan error, 1)
	// A goroutine of its own: if the thread's mask cannot be put back, the
	// goroutine ends with the thread still locked, and the runtime then
	// discards the thread instead of running other goroutines in the lane.
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if err := unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("read the CPU affinity of the spawning thread: %w", err)
			return
		}
		if err := unix.SchedSetaffinity(0, &want); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("set CPU affinity %s: %w (is it outside this process's mask? see its Cpus_allowed_list in /proc/self/status)", s, err)
			return
		}
		err := cmd.Start()
		if unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}

// Allowed returns the CPUs the process pid may run on, read back from
// /proc: the union of Cpus_allowed_list over all its threads, so a thread
// that left its lane shows.
func Allowed(pid int) (Set, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tids, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the threads of pid %d: %w", pid, err)
	}
	var all Set
	for _, t := range tids {
		s, err := statusAllowed(filepath.Join(dir, t.Name(), "status"))
		if err != nil {
			continue // the thread exited while we read
		}
		all = all.Union(s)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("pid %d has exited", pid)
	}
	return all, nil
}

// AllowedAll is Allowed over several processes (a process tree): the union
// of their CPUs. Processes that exited while it read are left out.
func AllowedAll(pids []int) Set {
	var all Set
	for _, pid := range pids {
		if s, err := Allowed(pid); err == nil {
			all = all.Union(s)
		}
	}
	return all
}

func statusAllowed(path string) (Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
			return Parse(strings.TrimSpace(rest))
		}
	}
	return nil, fmt.Errorf("%s has no Cpus_allowed_list", path)
}

// Pin sets the affinity of every thread of the running processes pids to
// s: for a tree that was started before its lane was known (a database
// cluster left running by an earlier harness). Children forked later
// inherit it; a process that exits meanwhile is skipped.
func Pin(pids []int, s Set) error {
	want := s.mask()
	for _, pid := range pids {
		tids, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		if err != nil {
			continue // exited
		}
		for _, t := range tids {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &want); err != nil && err != unix.ESRCH {
				return fmt.Errorf("set the CPU affinity of pid %d to %s: %w", pid, s, err)
			}
		}
	}
	return nil
}
