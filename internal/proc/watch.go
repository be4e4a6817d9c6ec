package proc

import (
	"time"

	"github.com/stackbench/stackbench/internal/host"
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

	kids []int
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
}

func newWatch(groups []Group, open host.Clocks) *watch {
	openBootTicks := int64(open.Boot / (time.Second / time.Duration(clockTicksPerSecond)))
	w := &watch{index: map[int]int{}}
	for _, g := range groups {
		w.groups = append(w.groups, watchedGroup{Group: g, acct: newAccount(g.ownOnly, openBootTicks)})
	}
	return w
}

// sample updates every group. A full sample reads every process on the
// machine once, which is exact; the others read only the groups' own
// processes (a tree is walked through its children files), which costs a
// small fraction of that on a machine with hundreds of processes.
func (w *watch) sample(full bool) {
	w.full = full || !childrenSupported
	if w.full {
		w.table, w.pids = scanAll(&w.reader, w.pids, w.table)
		clear(w.index)
		for i, st := range w.table {
			w.index[st.PID] = i
		}
	}
	for i := range w.groups {
		w.sampleGroup(&w.groups[i])
	}
	w.n++
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
	case g.root != 0:
		w.cur = w.walkTree(g.root, w.cur)
	case g.PIDs != nil:
		for _, pid := range g.PIDs() {
			if st, ok := w.lookup(pid); ok {
				w.cur = append(w.cur, st)
			} else if st, ok := w.reader.read(pid); ok {
				w.cur = append(w.cur, st) // not in the table: started after the scan
			}
		}
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

// stats summarises the groups over a window of the given wall time.
func (w *watch) stats(wall time.Duration) WindowStats {
	out := WindowStats{Wall: wall, Samples: w.n}
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
		}
		if wall > 0 {
			gs.Cores = cpu / wall.Seconds()
		}
		if w.n > 0 {
			gs.RSSMeanBytes = g.rssSum / int64(w.n)
		}
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
