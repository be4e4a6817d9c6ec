package proc

import (
	"slices"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/platform"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// watch holds the state of a sampler between samples. Its buffers are
// reused so a sample allocates little.
type watch struct {
	groups []watchedGroup
	reader statReader
	table  []procStat
	pids   []int
	index  map[int]int // pid → position in table, for this sample
	tree   []int
	cur    []procStat
	exact  []int64 // cur's exact own CPU (ExactCPU), -1 where none
	n      int     // samples taken
	full   bool    // this sample scanned the whole process table
	// walkFiles is what walking the tree groups cost at the last sample,
	// in files read (a stat per member, and its task directory and a
	// children file per thread to find its children); tableFiles is what
	// the last whole scan read (a stat per process on the machine). The
	// cheaper is taken for the next sample: a tree of multi-threaded
	// processes (a JVM of 200 threads, a test runner's tree) costs more
	// to walk than a machine of a hundred processes costs to scan.
	walkFiles, tableFiles int

	kids []int

	// others accounts for every process on the machine no group claims:
	// foreign CPU read process by process, at the full samples only (a
	// window's two ends). claimed is the groups' processes at the current
	// full sample; cgroups the cgroup groups' cgroups, whose processes
	// are claimed too.
	others  *account
	claimed map[int]struct{}
	cgroups []string
}

type watchedGroup struct {
	Group
	acct *account
	// cgroup groups: the CPU counter at the first and the last sample.
	cgFirst, cgLast time.Duration
	cgSeen          bool

	rssSum    int64
	rssPeak   int64
	processes int
	// titles caches a PartOfTree group's verdict per process, by pid and
	// start time (a reused pid is another process).
	titles map[[2]int64]bool
	// series is the group's CPU so far (nanoseconds since the opening
	// snapshot) at each sample, with the sample's time, for the halves.
	series []cpuAt
}

// cpuAt is a group's CPU since the opening snapshot at one instant.
type cpuAt struct {
	at    time.Time
	nanos int64
}

func newWatch(groups []Group, open host.Clocks) *watch {
	openBootTicks := int64(open.Boot / (time.Second / time.Duration(clockTicksPerSecond)))
	w := &watch{index: map[int]int{}}
	w.reader.r = takeReader()
	if h, ok := w.reader.r.(platform.Holder); ok {
		// The groups' processes are read again at every sample, and the
		// machine's at every window's two ends: keep their files open.
		h.Hold(true)
	}
	for _, g := range groups {
		w.groups = append(w.groups, watchedGroup{Group: g, acct: newAccount(g.ownOnly, openBootTicks)})
		if g.cgroup != "" {
			w.cgroups = append(w.cgroups, g.cgroup)
		}
	}
	w.others = newAccount(false, openBootTicks)
	w.claimed = map[int]struct{}{}
	return w
}

// sample updates every group. A full sample reads every process on the
// machine once, which is exact; the others read only the groups' own
// processes (a tree is walked through its children files), which costs a
// small fraction of that on a machine with hundreds of processes.
func (w *watch) sample(full bool) {
	w.full = full || !childrenSupported || w.walkFiles > w.tableFiles
	if w.full {
		w.table, w.pids = scanAll(&w.reader, w.pids, w.table)
		w.tableFiles = len(w.pids) + 1
		if h, ok := w.reader.reader().(platform.Holder); ok {
			h.Sweep() // the files of processes gone since the last whole scan
		}
		clear(w.index)
		for i, st := range w.table {
			w.index[st.PID] = i
		}
		clear(w.claimed)
	}
	w.walkFiles = 0
	now := time.Now()
	for i := range w.groups {
		g := &w.groups[i]
		w.sampleGroup(g)
		n := g.acct.nanos()
		if g.cgroup != "" {
			n = int64(g.cgLast - g.cgFirst)
		}
		g.series = append(g.series, cpuAt{at: now, nanos: n})
	}
	if w.full {
		w.sampleOthers()
	}
	w.n++
}

// sampleOthers reads, from the full sample's table, every process that no
// group claimed: the neighbours, the kernel's threads, anything else. Their
// CPU is read as the groups' is (exactly where the platform can, else its
// ticks, which Linux scales to the scheduler's exact runtime), so foreign
// CPU and the groups' CPU are of one kind and one clock.
func (w *watch) sampleOthers() {
	w.cur = w.cur[:0]
	for _, st := range w.table {
		if _, ok := w.claimed[st.PID]; ok {
			continue
		}
		if len(w.cgroups) > 0 {
			if cg, err := local.OS.Cgroup(st.PID); err == nil && slices.Contains(w.cgroups, cg) {
				continue
			}
		}
		w.cur = append(w.cur, st)
	}
	w.exact = w.exact[:0]
	for _, st := range w.cur {
		ns := int64(-1)
		if v, ok := w.reader.exactCPU(st); ok {
			ns = v
		}
		w.exact = append(w.exact, ns)
	}
	w.others.observe(w.cur, w.exact, w.lookup)
}

// release gives the watch's reader, and the files it holds, back for the
// next window's sampler.
func (w *watch) release() {
	putReader(w.reader.reader())
	w.reader.r = nil
}

// heldReaders are readers whose files stay open between windows, so that
// a window's first whole scan reads through files the last one opened.
// A few are kept: as many as samplers run at once.
var heldReaders struct {
	sync.Mutex
	free []platform.ProcReader
}

const maxHeldReaders = 2

func takeReader() platform.ProcReader {
	heldReaders.Lock()
	defer heldReaders.Unlock()
	if n := len(heldReaders.free); n > 0 {
		r := heldReaders.free[n-1]
		heldReaders.free = heldReaders.free[:n-1]
		return r
	}
	return local.OS.NewProcReader()
}

func putReader(r platform.ProcReader) {
	h, ok := r.(platform.Holder)
	if !ok {
		return
	}
	h.Hold(false)
	heldReaders.Lock()
	defer heldReaders.Unlock()
	if len(heldReaders.free) < maxHeldReaders {
		heldReaders.free = append(heldReaders.free, r)
		return
	}
	h.Release()
}

// lookup finds any process on the machine: in the table of a full sample,
// or by reading its stat.
func (w *watch) lookup(pid int) (procStat, bool) {
	if !w.full {
		return w.reader.read(pid)
	}
	if i, ok := w.index[pid]; ok {
		return w.table[i], true
	}
	return procStat{}, false
}

func (w *watch) sampleGroup(g *watchedGroup) {
	if g.cgroup != "" {
		w.sampleCgroup(g)
		return
	}
	w.cur = w.cur[:0]
	switch {
	case g.root != 0 && w.full:
		w.tree = descendants(w.table, g.root, w.tree)
		for _, pid := range w.tree {
			w.cur = append(w.cur, w.table[w.index[pid]])
		}
		w.walkFiles += walkCost(w.cur)
	case g.root != 0:
		w.cur = w.walkTree(g.root, w.cur)
		w.walkFiles += walkCost(w.cur)
	case g.PIDs != nil:
		for _, pid := range g.PIDs() {
			if st, ok := w.lookup(pid); ok {
				w.cur = append(w.cur, st)
			} else if st, ok := w.reader.read(pid); ok {
				w.cur = append(w.cur, st) // not in the table: started after the scan
			}
		}
	}
	if w.full && g.match == nil {
		for _, st := range w.cur {
			w.claimed[st.PID] = struct{}{}
		}
	}
	if g.match != nil {
		w.cur = g.keepMatching(w.cur)
	}
	w.exact = w.exact[:0]
	for _, st := range w.cur {
		ns := int64(-1)
		if v, ok := w.reader.exactCPU(st); ok {
			ns = v
		}
		w.exact = append(w.exact, ns)
	}
	g.acct.observe(w.cur, w.exact, w.lookup)
	var rss int64
	for _, st := range w.cur {
		rss += st.RSSBytes
	}
	g.rssSum += rss
	g.rssPeak = max(g.rssPeak, rss)
	g.processes = max(g.processes, len(w.cur))
}

// keepMatching filters a PartOfTree group's tree down to the processes
// whose title its match accepts, in place.
func (g *watchedGroup) keepMatching(tree []procStat) []procStat {
	if g.titles == nil {
		g.titles = map[[2]int64]bool{}
	}
	kept := tree[:0]
	for _, st := range tree {
		k := [2]int64{int64(st.PID), st.StartTicks}
		ok, seen := g.titles[k]
		if !seen {
			ok = g.match(local.OS.Cmdline(st.PID))
			g.titles[k] = ok
		}
		if ok {
			kept = append(kept, st)
		}
	}
	return kept
}

// walkCost is how many files walking a tree of these processes reads: a
// stat each, and its children file, or for a multi-threaded process its
// task directory and a children file per thread.
func walkCost(tree []procStat) int {
	n := 0
	for _, st := range tree {
		if st.Threads <= 1 {
			n += 2
		} else {
			n += 2 + st.Threads
		}
	}
	return n
}

// stats summarises the groups over a window of the given wall time.
func (w *watch) stats(wall time.Duration) WindowStats {
	out := WindowStats{Wall: wall, Samples: w.n}
	if wall > 0 {
		out.ForeignProcessCores = float64(w.others.nanos()) / 1e9 / wall.Seconds()
	}
	for _, g := range w.groups {
		cpu := float64(g.acct.nanos()) / 1e9
		if g.cgroup != "" {
			cpu = (g.cgLast - g.cgFirst).Seconds()
		}
		gs := GroupStats{
			Name:         g.Name,
			CPUSeconds:   cpu,
			RSSPeakBytes: g.rssPeak,
			Processes:    g.processes,
			Part:         g.match != nil,
		}
		if wall > 0 {
			gs.Cores = cpu / wall.Seconds()
		}
		if w.n > 0 {
			gs.RSSMeanBytes = g.rssSum / int64(w.n)
		}
		gs.FirstHalfCPUSeconds, gs.SecondHalfCPUSeconds = halves(g.series)
		out.Groups = append(out.Groups, gs)
	}
	return out
}

// sampleCgroup reads a cgroup group's counters. A cgroup that cannot be
// read (the container is gone) keeps its last values.
func (w *watch) sampleCgroup(g *watchedGroup) {
	u, err := local.OS.CgroupUsage(g.cgroup)
	if err != nil {
		return
	}
	if !g.cgSeen {
		g.cgFirst, g.cgSeen = u.CPU, true
	}
	g.cgLast = max(g.cgLast, u.CPU)
	g.rssSum += u.RSSBytes
	g.rssPeak = max(g.rssPeak, u.RSSBytes)
	g.processes = max(g.processes, u.Processes)
}

// halves splits a group's CPU over the window at the middle of its
// sampled span, interpolating between the two samples around it: what
// the group used in the first half and in the second. Both are 0 with
// fewer than three samples (no sample inside the window to split at).
func halves(series []cpuAt) (first, second float64) {
	if len(series) < 3 {
		return 0, 0
	}
	start, end := series[0], series[len(series)-1]
	mid := start.at.Add(end.at.Sub(start.at) / 2)
	at := start.nanos
	for i := 1; i < len(series); i++ {
		a, b := series[i-1], series[i]
		if b.at.Before(mid) {
			continue
		}
		span := b.at.Sub(a.at)
		frac := 0.0
		if span > 0 {
			frac = float64(mid.Sub(a.at)) / float64(span)
		}
		at = a.nanos + int64(frac*float64(b.nanos-a.nanos))
		break
	}
	return float64(at-start.nanos) / 1e9, float64(end.nanos-at) / 1e9
}
