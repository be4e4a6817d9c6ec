//go:build darwin

package darwin

import (
	"context"
	"slices"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/unix"

	"github.com/stackbench/stackbench/internal/platform"
)

// OS is the macOS implementation of platform.OS.
type OS struct{}

// New returns the macOS platform.
func New() OS { return OS{} }

var _ platform.OS = OS{}

// Name returns "darwin".
func (OS) Name() string { return "darwin" }

// TicksPerSecond: times are in nanoseconds.
func (OS) TicksPerSecond() int64 { return ticksPerSecond }

// Capabilities: no child times, no affinity, no parent-death signal;
// children are listed from the process table (kern.proc.all).
func (OS) Capabilities() platform.Capabilities { return platform.Capabilities{Children: true} }

// NewProcReader returns a reader through sysctl and libproc.
func (OS) NewProcReader() platform.ProcReader { return &reader{} }

type reader struct{}

func bootTime() time.Time {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return time.Time{}
	}
	return time.Unix(tv.Sec, int64(tv.Usec)*1000)
}

func fromKinfo(k *unix.KinfoProc) kinfo {
	return kinfo{
		pid: int(k.Proc.P_pid), ppid: int(k.Eproc.Ppid), pgid: int(k.Eproc.Pgid),
		stat:    k.Proc.P_stat,
		started: time.Unix(k.Proc.P_starttime.Sec, int64(k.Proc.P_starttime.Usec)*1000),
	}
}

func task(pid int) taskInfo {
	ctx := context.Background()
	p := &process.Process{Pid: int32(pid)}
	var t taskInfo
	if ts, err := p.TimesWithContext(ctx); err == nil {
		t.user = time.Duration(ts.User * float64(time.Second))
		t.system = time.Duration(ts.System * float64(time.Second))
	}
	if m, err := p.MemoryInfoWithContext(ctx); err == nil {
		t.rssBytes = int64(m.RSS)
	}
	if n, err := p.NumThreadsWithContext(ctx); err == nil {
		t.threads = int(n)
	}
	return t
}

// Read returns one process from kern.proc.pid and PROC_PIDTASKINFO.
func (*reader) Read(pid int) (platform.Proc, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return platform.Proc{}, false
	}
	return toProc(fromKinfo(k), task(pid), bootTime()), true
}

// List returns every process from kern.proc.all.
func (*reader) List(dst []int) ([]int, error) {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return dst, err
	}
	for i := range all {
		if pid := int(all[i].Proc.P_pid); pid > 0 {
			dst = append(dst, pid)
		}
	}
	return dst, nil
}

// ExactCPU: the task info's times are already in nanoseconds (OwnTicks,
// at TicksPerSecond 1e9), so there is nothing more exact to read.
func (*reader) ExactCPU(platform.Proc) (int64, bool) { return 0, false }

// Children lists the children of p from one kern.proc.all sysctl (a copy
// of the kernel's process table, without a call per process): cheaper than
// reading every process's task info, which a full scan does.
func (*reader) Children(p platform.Proc, dst []int) ([]int, bool) {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return dst, false
	}
	for i := range all {
		if int(all[i].Eproc.Ppid) == p.PID && int(all[i].Proc.P_pid) != p.PID {
			dst = append(dst, int(all[i].Proc.P_pid))
		}
	}
	return dst, true
}

// HostCPU reads the host's CPU times (host_processor_info via gopsutil).
func (OS) HostCPU() (platform.HostCPU, error) {
	ts, err := cpu.Times(false)
	if err != nil || len(ts) == 0 {
		return platform.HostCPU{}, err
	}
	t := ts[0]
	return hostTicks(t.User, t.Nice, t.System, t.Idle, t.Iowait, t.Irq, t.Softirq, t.Steal), nil
}

// Clocks reads CLOCK_MONOTONIC (it advances while the Mac sleeps) as the
// boot clock and CLOCK_UPTIME_RAW (it stops) as the monotonic one.
func (OS) Clocks() platform.Clocks {
	var b, m unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &b)
	unix.ClockGettime(unix.CLOCK_UPTIME_RAW, &m)
	return platform.Clocks{Boot: time.Duration(b.Nano()), Monotonic: time.Duration(m.Nano())}
}

// ThreadCPU returns the CPU time of the calling OS thread.
func (OS) ThreadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// Cmdline returns pid's arguments (kern.procargs2 via gopsutil).
func (OS) Cmdline(pid int) string {
	s, _ := (&process.Process{Pid: int32(pid)}).Cmdline()
	return s
}

// ListenPorts asks gopsutil (lsof) for the TCP ports pids listen on.
func (OS) ListenPorts(pids []int) []int {
	conns, err := net.Connections("tcp")
	if err != nil {
		return nil
	}
	var out []int
	for _, c := range conns {
		if c.Status == "LISTEN" && slices.Contains(pids, int(c.Pid)) && !slices.Contains(out, int(c.Laddr.Port)) {
			out = append(out, int(c.Laddr.Port))
		}
	}
	slices.Sort(out)
	return out
}

// Listeners asks gopsutil (lsof) for the TCP sockets listening on port.
func (OS) Listeners(port int) ([]int, bool) {
	conns, err := net.Connections("tcp")
	if err != nil {
		return nil, false
	}
	var pids []int
	listening := false
	for _, c := range conns {
		if c.Status != "LISTEN" || int(c.Laddr.Port) != port {
			continue
		}
		listening = true
		if c.Pid > 0 {
			pids = append(pids, int(c.Pid))
		}
	}
	return pids, listening
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

// Affinity is not supported: macOS has no CPU affinity.
func (OS) Affinity() ([]int, error) { return nil, platform.ErrUnsupported }

// AllowedCPUs is not supported.
func (OS) AllowedCPUs(int) ([]int, error) { return nil, platform.ErrUnsupported }

// Pin is not supported.
func (OS) Pin([]int, []int) error { return platform.ErrUnsupported }

// Facts reads the host's facts through sysctl, uname and getrlimit.
func (OS) Facts() platform.Facts {
	var f platform.Facts
	f.CPUModel, _ = unix.Sysctl("machdep.cpu.brand_string")
	if n, err := unix.SysctlUint32("hw.ncpu"); err == nil {
		f.CPUCount = int(n)
	}
	if n, err := unix.SysctlUint32("kern.ipc.somaxconn"); err == nil {
		f.Somaxconn = int(n)
	}
	if n, err := unix.SysctlUint64("hw.memsize"); err == nil {
		f.MemoryBytes = int64(n)
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		f.Kernel = unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Version[:])
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil {
		f.OpenFileLimit, f.OpenFileLimitHard = rl.Cur, rl.Max
	}
	return f
}
