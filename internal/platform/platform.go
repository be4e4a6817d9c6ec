// Package platform is the only part of stackbench that knows the operating
// system. It defines what the harness asks of the machine it runs on — the
// processes and their CPU and resident memory, the host's busy CPU, the
// clocks, listening ports, signals to process groups, CPU affinity and the
// host's facts — as one small interface, OS, with plain data on both sides,
// so that another implementation (an agent on a remote host) can stand in
// for the local one later.
//
// The implementations live in platform/linux (/proc, sched_setaffinity,
// parent-death signals) and platform/darwin (sysctl and libproc through
// gopsutil, no affinity, a watchdog instead of parent-death signals);
// platform/local picks the one of the machine the harness was built for and
// adds what only makes sense locally: starting an *exec.Cmd in its own
// process group that dies with the harness.
package platform

import (
	"errors"
	"time"
)

// ErrUnsupported is returned by operations the operating system has no
// equivalent for (CPU affinity on macOS).
var ErrUnsupported = errors.ErrUnsupported

// Signal is a signal the harness sends to processes it started.
type Signal int

const (
	// Probe delivers nothing and only checks that the target exists.
	Probe Signal = iota
	// Terminate asks the process to exit (SIGTERM).
	Terminate
	// Kill ends the process at once (SIGKILL).
	Kill
)

// Proc is one process as the samplers see it. CPU times and the start
// time are in the OS's ticks (OS.TicksPerSecond).
type Proc struct {
	PID  int
	PPID int
	// PGID is the process group.
	PGID int
	// Alive is false for a zombie: it has exited and its parent has not
	// reaped it yet.
	Alive bool
	// OwnTicks is the process's user+system CPU time: every thread, live
	// or exited.
	OwnTicks int64
	// ChildTicks is the CPU time of the children the process waited for
	// (always 0 where Capabilities.ChildTimes is false).
	ChildTicks int64
	// StartTicks is when the process started, in ticks since boot. With
	// the pid it names one process across pid reuse.
	StartTicks int64
	// RSSBytes is the resident memory.
	RSSBytes int64
	// Threads is the number of threads.
	Threads int
}

// HostCPU is the host's cumulative CPU time since boot, all CPUs summed, in
// the OS's ticks.
type HostCPU struct {
	// BusyTicks is user+nice+system+irq+softirq+steal: steal counts as
	// busy, since a hypervisor that takes our CPUs contends like a process.
	BusyTicks int64
	// IdleTicks is idle+iowait.
	IdleTicks int64
	// StealTicks is steal alone (also in BusyTicks): the time a hypervisor
	// ran something else on our CPUs, which no process of ours can see.
	StealTicks int64
}

// Clocks is one reading of the two clocks that tell a suspend apart: Boot
// advances while the machine sleeps, Monotonic does not.
type Clocks struct {
	Boot      time.Duration
	Monotonic time.Duration
}

// Capabilities says what an OS implementation can do; the plan and the
// report name what is missing.
type Capabilities struct {
	// ChildTimes: Proc.ChildTicks holds the CPU time of waited-for
	// children, so the CPU of a short-lived child survives its exit.
	ChildTimes bool
	// Affinity: CPU affinity can be read and set, so placement lanes work.
	Affinity bool
	// DeathSignal: the kernel kills a started group's leader when the
	// harness dies; without it a watchdog process kills the groups.
	DeathSignal bool
	// Children: ProcReader.Children lists a process's children without a
	// scan of the whole process table.
	Children bool
}

// Facts are the host's facts a run records. Facts that cannot be read
// stay zero.
type Facts struct {
	Kernel   string
	CPUModel string
	// CPUCount is the host's CPUs, online or not in our affinity mask.
	CPUCount int
	// CPUQuota is the CPUs a cgroup quota leaves us (0: no quota).
	CPUQuota float64
	// Governor is the CPU frequency governor of cpu0 (Linux only).
	Governor          string
	Somaxconn         int
	MemoryBytes       int64
	MemoryLimitBytes  int64
	OpenFileLimit     uint64
	OpenFileLimitHard uint64
}

// CgroupUsage is a cgroup's cumulative CPU time and its memory now.
type CgroupUsage struct {
	CPU time.Duration
	// RSSBytes is the cgroup's anonymous (resident, not file cache) memory.
	RSSBytes int64
	// Processes is how many processes are in it.
	Processes int
}

// ProcReader reads processes. It keeps buffers between calls so that a
// sampler reading the same processes several times a second allocates
// little; it is not safe for concurrent use.
type ProcReader interface {
	// Read returns one process; ok is false when it is gone.
	Read(pid int) (p Proc, ok bool)
	// List appends the pid of every process visible to us.
	List(dst []int) ([]int, error)
	// Children appends the children of p (found through all its
	// threads). ok is false when the OS cannot list them without a scan
	// of the whole process table (Capabilities.Children).
	Children(p Proc, dst []int) (kids []int, ok bool)
	// ExactCPU is p's own CPU time (OwnTicks' figure) in nanoseconds,
	// not rounded to a tick, where the OS gives it: on Linux the
	// process's CPU-time clock (every thread's run time, live or exited).
	// ok is false otherwise (OwnTicks is then the figure to use). Summed over the twenty to
	// forty backends of a PostgreSQL tree, ticks of 10 ms move a
	// one-second window's CPU by several per cent, and a multi-threaded
	// server's utime+stime lag its threads' count by up to 50 ms.
	ExactCPU(p Proc) (ns int64, ok bool)
}

// Holder is a ProcReader that can keep the files it reads open between
// reads, so that reading the same processes again costs a read, not an
// open, a read and a close (Linux's /proc). Samplers share held readers
// across windows, sweeping the files of processes gone.
type Holder interface {
	// Hold turns holding on or off for the reads that follow.
	Hold(on bool)
	// Sweep closes the files not read since the last Sweep.
	Sweep()
	// Release closes every file held and turns holding off.
	Release()
}

// OS is everything the harness asks of the machine it runs on.
type OS interface {
	// Name is the OS's name as GOOS spells it.
	Name() string
	// TicksPerSecond is the unit of Proc's CPU and start times and of
	// HostCPU.
	TicksPerSecond() int64
	// Capabilities says what this implementation supports.
	Capabilities() Capabilities
	// NewProcReader returns a reader of processes for one goroutine.
	NewProcReader() ProcReader
	// HostCPU reads the host's cumulative CPU time.
	HostCPU() (HostCPU, error)
	// Clocks reads the boot-time and monotonic clocks.
	Clocks() Clocks
	// ThreadCPU is the CPU time of the calling OS thread.
	ThreadCPU() time.Duration
	// Cmdline is pid's command line with spaces between the arguments,
	// or "" when it cannot be read.
	Cmdline(pid int) string
	// Listeners returns the processes holding a TCP socket that listens
	// on port (any address); listening is true when a socket listens even
	// if its owner is not visible to us.
	Listeners(port int) (pids []int, listening bool)
	// ListenPorts returns the TCP ports any of pids listens on, sorted;
	// nil when none, or when they cannot be read.
	ListenPorts(pids []int) []int
	// Signal sends s to one process.
	Signal(pid int, s Signal) error
	// SignalGroup sends s to every process of the group pgid.
	SignalGroup(pgid int, s Signal) error
	// Affinity returns the CPUs this process may run on; ErrUnsupported
	// where the OS has no affinity.
	Affinity() ([]int, error)
	// AllowedCPUs returns the union of the CPUs the threads of pid may
	// run on.
	AllowedCPUs(pid int) ([]int, error)
	// Pin sets the affinity of every thread of the given processes.
	Pin(pids []int, cpus []int) error
	// Facts reads the host's facts.
	Facts() Facts
	// Cgroup names the cgroup of pid, in the form CgroupUsage takes
	// (a container's processes share one); ErrUnsupported without cgroups.
	Cgroup(pid int) (string, error)
	// CgroupUsage reads a cgroup's CPU time and memory.
	CgroupUsage(cgroup string) (CgroupUsage, error)
}
