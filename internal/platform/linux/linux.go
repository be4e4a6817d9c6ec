//go:build linux

// Package linux is the platform.OS of Linux: processes from /proc, host CPU
// from /proc/stat, suspend detection from CLOCK_BOOTTIME, affinity through
// sched_setaffinity, and process groups that the kernel kills with
// the harness (Pdeathsig). It reads /proc directly and spawns nothing, so a
// sampler costs little during a window (trap T8).
package linux

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stackbench/stackbench/internal/platform"
)

// clockTicksPerSecond is USER_HZ, the unit of the CPU times in /proc. It is
// 100 on every Linux architecture Go supports.
const clockTicksPerSecond = 100

var pageSizeBytes = int64(os.Getpagesize())

// OS is the Linux implementation of platform.OS.
type OS struct{}

// New returns the Linux platform.
func New() OS { return OS{} }

var _ platform.OS = OS{}

// Name returns "linux".
func (OS) Name() string { return "linux" }

// TicksPerSecond returns USER_HZ.
func (OS) TicksPerSecond() int64 { return clockTicksPerSecond }

// Capabilities: Linux has them all (children files need CONFIG_PROC_CHILDREN).
func (OS) Capabilities() platform.Capabilities {
	return platform.Capabilities{ChildTimes: true, Affinity: true, DeathSignal: true, Children: childrenSupported}
}

// NewProcReader returns a reader of /proc/<pid>/stat.
func (OS) NewProcReader() platform.ProcReader { return &Reader{} }

// Clocks reads CLOCK_BOOTTIME and CLOCK_MONOTONIC.
func (OS) Clocks() platform.Clocks {
	var b, m unix.Timespec
	unix.ClockGettime(unix.CLOCK_BOOTTIME, &b)
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &m)
	return platform.Clocks{Boot: time.Duration(b.Nano()), Monotonic: time.Duration(m.Nano())}
}

// ThreadCPU returns the CPU time of the calling OS thread.
func (OS) ThreadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// Cmdline reads /proc/<pid>/cmdline.
func (OS) Cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

func unixSignal(s platform.Signal) syscall.Signal {
	switch s {
	case platform.Terminate:
		return syscall.SIGTERM
	case platform.Kill:
		return syscall.SIGKILL
	}
	return 0
}

// Signal sends s to pid.
func (OS) Signal(pid int, s platform.Signal) error { return syscall.Kill(pid, unixSignal(s)) }

// SignalGroup sends s to the process group pgid.
func (OS) SignalGroup(pgid int, s platform.Signal) error {
	return syscall.Kill(-pgid, unixSignal(s))
}
