// Package darwin is the platform.OS of macOS: processes through sysctl
// (kern.proc) and libproc (through gopsutil, which loads it without cgo),
// host CPU through host_processor_info (gopsutil), suspend detection from
// CLOCK_MONOTONIC (which advances while the Mac sleeps) against
// CLOCK_UPTIME_RAW (which does not), listening ports through gopsutil
// (which asks lsof, so never during a window). macOS has no CPU affinity
// (placement lanes are refused) and no parent-death signal: a watchdog
// process kills the harness's process groups when the harness dies.
//
// The conversions in this file are plain Go, built on every OS so that
// they are tested on Linux from recorded values.
package darwin

import (
	"time"

	"github.com/stackbench/stackbench/internal/platform"
)

// ticksPerSecond: CPU and start times are reported in nanoseconds.
const ticksPerSecond = int64(time.Second)

// sZomb is p_stat of a zombie (SZOMB in <sys/proc.h>).
const sZomb = 5

// kinfo is what stackbench takes from a struct kinfo_proc.
type kinfo struct {
	pid, ppid, pgid int
	stat            int8
	started         time.Time
}

// taskInfo is what stackbench takes from proc_pidinfo(PROC_PIDTASKINFO).
type taskInfo struct {
	user, system time.Duration
	rssBytes     int64
	threads      int
}

// toProc combines the two into a platform.Proc; boot is kern.boottime.
func toProc(k kinfo, t taskInfo, boot time.Time) platform.Proc {
	start := max(k.started.Sub(boot), 0)
	return platform.Proc{
		PID: k.pid, PPID: k.ppid, PGID: k.pgid, Alive: k.stat != sZomb,
		OwnTicks:   int64(t.user + t.system),
		StartTicks: int64(start),
		RSSBytes:   t.rssBytes,
		Threads:    t.threads,
	}
}

// hostTicks turns gopsutil's host CPU seconds into busy and idle
// nanoseconds, the way Linux's /proc/stat line is split.
func hostTicks(user, nice, system, idle, iowait, irq, softirq, steal float64) platform.HostCPU {
	sec := func(s float64) int64 { return int64(s * float64(ticksPerSecond)) }
	return platform.HostCPU{
		BusyTicks:  sec(user) + sec(nice) + sec(system) + sec(irq) + sec(softirq) + sec(steal),
		IdleTicks:  sec(idle) + sec(iowait),
		StealTicks: sec(steal),
	}
}

// watchdogScript reads "+pgid" and "-pgid" lines on its standard input and
// keeps the set of live groups; at end of file (the harness died or exited,
// and the pipe's last writer with it) it kills every group still listed.
// It ignores the terminal's signals so that a Ctrl-C reaches the harness
// first and the harness stops its groups in order.
const watchdogScript = `trap '' INT HUP TERM
groups=' '
while read -r line; do
	case "$line" in
	+*) groups="$groups${line#+} " ;;
	-*) g=${line#-}
		case "$groups" in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;
	esac
done
for g in $groups; do kill -9 -- "-$g" 2>/dev/null; done
`
