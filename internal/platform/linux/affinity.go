//go:build linux

package linux

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxCPU bounds the CPU numbers of an affinity mask: the size of the
// kernel's default mask (unix.CPUSet).
const maxCPU = 1023

// Affinity returns the CPUs this process may run on: its affinity mask (a
// cgroup cpuset is already part of it), not the host's CPU count.
func (OS) Affinity() ([]int, error) {
	// This goroutine's own thread: never one that StartPinned has narrowed
	// to a lane, since StartPinned keeps such a thread locked to its own
	// goroutine (the main thread, os.Getpid(), could be that one for a moment).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		return nil, fmt.Errorf("read this process's CPU affinity: %w", err)
	}
	return fromMask(&mask), nil
}

func fromMask(m *unix.CPUSet) []int {
	var s []int
	for c := 0; c <= maxCPU; c++ {
		if m.IsSet(c) {
			s = append(s, c)
		}
	}
	return s
}

func toMask(cpus []int) unix.CPUSet {
	var m unix.CPUSet
	for _, c := range cpus {
		m.Set(c)
	}
	return m
}

// threads returns the thread ids of pid.
func threads(pid int) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return nil, err
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// AllowedCPUs returns the union of the affinity masks of every thread of
// pid, so a thread that left its lane shows.
func (OS) AllowedCPUs(pid int) ([]int, error) {
	tids, err := threads(pid)
	if err != nil {
		return nil, fmt.Errorf("read the threads of pid %d: %w", pid, err)
	}
	var all []int
	for _, tid := range tids {
		var m unix.CPUSet
		if unix.SchedGetaffinity(tid, &m) != nil {
			continue // the thread exited while we read
		}
		all = append(all, fromMask(&m)...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("pid %d has exited", pid)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

// Pin sets the affinity of every thread of the running processes pids to
// cpus. Children forked later inherit it; a process that exits meanwhile is
// skipped.
func (OS) Pin(pids []int, cpus []int) error {
	want := toMask(cpus)
	for _, pid := range pids {
		tids, err := threads(pid)
		if err != nil {
			continue // exited
		}
		for _, tid := range tids {
			if err := unix.SchedSetaffinity(tid, &want); err != nil && err != unix.ESRCH {
				return fmt.Errorf("set the CPU affinity of pid %d to %v: %w", pid, cpus, err)
			}
		}
	}
	return nil
}

// StartPinned starts cmd with its CPU affinity set to cpus, so that the
// process and every thread and child it ever makes inherit the lane: the
// calling goroutine's OS thread is locked, its own mask set to cpus, the
// child forked from that thread (a child inherits its parent thread's
// mask), and the thread's mask put back. Empty cpus start cmd as it is.
func StartPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	want := toMask(cpus)
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
			done <- fmt.Errorf("set CPU affinity %v: %w (is it outside this process's mask? see its Cpus_allowed_list in /proc/self/status)", cpus, err)
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
