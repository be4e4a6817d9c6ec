package proc

import (
	"os"
	"runtime"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// DefaultSampleInterval is the RSS sampling interval: five samples a
// second, at a measured cost well under 1 % of a core (bench/sampler).
const DefaultSampleInterval = 200 * time.Millisecond

// Group is a set of processes measured together, e.g. "server",
// "database", "generator", "harness". Groups of one Sampler must not
// overlap, or foreign CPU is under-counted.
type Group struct {
	Name string
	// PIDs returns the group's processes at each sample. TreeGroup and
	// SelfGroup build groups the sampler resolves from its own scan of
	// the process table instead, which is cheaper.
	PIDs func() []int

	root    int    // TreeGroup: the root of the tree
	ownOnly bool   // SelfGroup: own CPU only
	cgroup  string // CgroupGroup: the cgroup, as platform.OS.Cgroup names it
	// PartOfTree: only the tree's members whose process title match
	// accepts; a part of another group, so left out of the sum that
	// foreign CPU is taken from.
	match func(title string) bool
}

// PartOfTree is the members of the tree rooted at pid whose process title
// (their command line, which PostgreSQL rewrites to "postgres: user
// database host(port) state") match accepts, each title read once per
// process. It measures a part of another group — a stack's own database
// backends within the postmaster's tree — so it may overlap that group:
// the sampler leaves it out of the CPU it subtracts for foreign CPU
// (GroupStats.Part). A member that exits keeps the CPU its last sample
// saw: its parent, outside the part, reaps it.
func PartOfTree(name string, pid int, match func(title string) bool) Group {
	return Group{Name: name, root: pid, match: match}
}

// CgroupGroup is every process of a cgroup (a container's): its CPU is the
// change of the cgroup's own CPU counter between the two snapshots, its
// memory the cgroup's resident (anonymous) memory at each sample.
func CgroupGroup(name, cgroup string) Group { return Group{Name: name, cgroup: cgroup} }

// TreeGroup is the process tree rooted at pid: the process and all its
// descendants, re-resolved at every sample. Use it for a stack
// (Process.PID) or the database (its postmaster).
func TreeGroup(name string, pid int) Group { return Group{Name: name, root: pid} }

// Root is the root of a TreeGroup's tree; 0 for another group.
func (g Group) Root() int { return g.root }

// SelfGroup is the calling process (the harness) alone: its own threads,
// but not the children it waits for, because those are the stacks, which
// other groups measure.
func SelfGroup(name string) Group {
	self := os.Getpid()
	return Group{Name: name, PIDs: func() []int { return []int{self} }, ownOnly: true}
}

// GroupStats is one group's share of a window.
type GroupStats struct {
	Name       string  `json:"name"`
	CPUSeconds float64 `json:"cpu_s"`
	// Cores is CPUSeconds ÷ the window's wall time.
	Cores        float64 `json:"cores"`
	RSSMeanBytes int64   `json:"rss_mean_bytes"`
	RSSPeakBytes int64   `json:"rss_peak_bytes"`
	// Processes is the largest number of processes seen in the group.
	Processes int `json:"processes"`
	// Part is true for a PartOfTree group: its CPU is also in another
	// group's.
	Part bool `json:"part,omitempty"`
	// FirstHalfCPUSeconds and SecondHalfCPUSeconds split CPUSeconds at
	// the middle of the window (interpolated between the samples around
	// it): a server still warming up — a JIT compiling, caches filling —
	// spends more in the first at a fixed offered rate. Both 0 with fewer
	// than three samples.
	FirstHalfCPUSeconds  float64 `json:"first_half_cpu_s,omitempty"`
	SecondHalfCPUSeconds float64 `json:"second_half_cpu_s,omitempty"`
}

// WindowStats is what a Sampler saw between its Start and Stop.
type WindowStats struct {
	// Opened is the wall-clock time of the opening snapshot, and Wall the
	// time from it to the closing one (both read just after the snapshot's
	// scan of /proc, so they bound the CPU readings to within that scan).
	Opened time.Time     `json:"opened"`
	Wall   time.Duration `json:"wall_ns"`
	Groups []GroupStats  `json:"groups"`
	// HostBusyCores is the busy CPU of the whole host (/proc/stat) ÷ wall.
	HostBusyCores float64 `json:"host_busy_cores"`
	// ForeignCores is the CPU of everything but the groups, in cores: the
	// larger of ForeignProcessCores and ForeignTickCores. Each can miss
	// what the other sees — a neighbour in another PID namespace is only
	// in the host's ticks; a neighbour beside a load of short bursts
	// hides under the ticks' sampling error — so the gate takes whichever
	// sees more.
	ForeignCores float64 `json:"foreign_cores"`
	// ForeignProcessCores is foreign CPU read process by process: every
	// process visible on the machine that no group claims (children they
	// waited for included), read at the window's two ends the way the
	// groups are, plus the host's steal time.
	ForeignProcessCores float64 `json:"foreign_process_cores"`
	// ForeignTickCores is HostBusyCores minus every group's Cores, floored
	// at 0. The host's busy ticks are sampled at the timer tick, the
	// groups' CPU is the scheduler's exact count: beside a server of
	// short bursts at part load the ticks miss 0.1–0.2 cores of it
	// (docs/methodology.md), and this difference hides a neighbour.
	ForeignTickCores float64 `json:"foreign_tick_cores"`
	// Suspended is true when the machine slept during the window (the
	// boot-time clock ran ahead of the monotonic one by more than
	// host.SuspendTolerance); SuspendedFor says how long.
	Suspended    bool          `json:"suspended"`
	SuspendedFor time.Duration `json:"suspended_for_ns"`
	// SamplerCPUSeconds is the CPU the sampler itself used: its thread's
	// CPU time from the opening to the closing snapshot.
	SamplerCPUSeconds float64 `json:"sampler_cpu_s"`
	// Samples is how many times the groups were read, both snapshots included.
	Samples int `json:"samples"`
}

// Group returns the stats of the named group.
func (w WindowStats) Group(name string) (GroupStats, bool) {
	for _, g := range w.Groups {
		if g.Name == name {
			return g, true
		}
	}
	return GroupStats{}, false
}

// Sampler measures groups of processes over one window. Use it once:
// Start, run the window, Stop.
type Sampler struct {
	interval time.Duration
	groups   []Group
	started  chan struct{}
	stop     chan struct{}
	result   chan WindowStats
}

// NewSampler returns a Sampler that reads RSS every interval (and CPU at
// the two snapshots); interval ≤ 0 means DefaultSampleInterval.
func NewSampler(interval time.Duration, groups ...Group) *Sampler {
	if interval <= 0 {
		interval = DefaultSampleInterval
	}
	return &Sampler{
		interval: interval,
		groups:   groups,
		started:  make(chan struct{}),
		stop:     make(chan struct{}),
		result:   make(chan WindowStats, 1),
	}
}

// Start takes the opening snapshot and returns; the window begins now.
func (s *Sampler) Start() {
	go s.run()
	<-s.started
}

// Stop takes the closing snapshot and returns the window's stats. Before
// Start it returns zero stats; call it once.
func (s *Sampler) Stop() WindowStats {
	select {
	case <-s.started:
	default:
		return WindowStats{}
	}
	close(s.stop)
	return <-s.result
}

// run is the sampler's goroutine. It is locked to one OS thread so that
// the thread's CPU clock measures exactly the sampler's own work.
func (s *Sampler) run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	selfCPU0 := threadCPU()
	clocks0 := host.ReadClocks()
	w := newWatch(s.groups, clocks0)
	defer w.release()
	w.sample(true)
	host0, _ := host.ReadCPU()
	wall0 := time.Now()
	close(s.started)

	ticker := time.NewTicker(s.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			w.sample(false)
		case <-s.stop:
			w.sample(true)
			host1, _ := host.ReadCPU()
			wall := time.Since(wall0)
			slept, suspended := host.ReadClocks().SuspendedSince(clocks0)
			stats := w.stats(wall)
			stats.Opened = wall0
			stats.HostBusyCores = host1.BusySecondsSince(host0) / wall.Seconds()
			ours := 0.0
			for _, g := range stats.Groups {
				if !g.Part {
					ours += g.Cores
				}
			}
			stats.ForeignTickCores = max(stats.HostBusyCores-ours, 0)
			stats.ForeignProcessCores += host1.StealSecondsSince(host0) / wall.Seconds()
			stats.ForeignCores = max(stats.ForeignTickCores, stats.ForeignProcessCores)
			stats.Suspended, stats.SuspendedFor = suspended, slept
			stats.SamplerCPUSeconds = (threadCPU() - selfCPU0).Seconds()
			s.result <- stats
			return
		}
	}
}

// threadCPU returns the CPU time of the calling OS thread.
func threadCPU() time.Duration { return local.OS.ThreadCPU() }
