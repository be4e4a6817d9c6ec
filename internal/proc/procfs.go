package proc

import (
	"github.com/stackbench/stackbench/internal/platform"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// procStat is one process as the platform reads it (platform.Proc).
type procStat = platform.Proc

// clockTicksPerSecond is the unit of the platform's CPU and start times
// (USER_HZ on Linux, nanoseconds on macOS).
var clockTicksPerSecond = local.OS.TicksPerSecond()

// childrenSupported reports whether the platform lists a process's
// children without a scan of the whole process table.
var childrenSupported = local.OS.Capabilities().Children

// statReader reads processes through the platform, reusing its buffers.
type statReader struct {
	r platform.ProcReader
}

func (r *statReader) reader() platform.ProcReader {
	if r.r == nil {
		r.r = local.OS.NewProcReader()
	}
	return r.r
}

// exactCPU is st's own CPU in nanoseconds where the platform reads it
// exactly (platform.ProcReader.ExactCPU).
func (r *statReader) exactCPU(st procStat) (int64, bool) { return r.reader().ExactCPU(st) }

// read returns the process pid; ok is false when it is gone.
func (r *statReader) read(pid int) (procStat, bool) { return r.reader().Read(pid) }

// StartTicks returns when pid started, in the platform's ticks since boot.
// With the pid it names one process across pid reuse. ok is false when the
// process is gone.
func StartTicks(pid int) (ticks int64, ok bool) {
	var r statReader
	st, ok := r.read(pid)
	return st.StartTicks, ok
}

// listPIDs returns every process (not thread) visible to us.
func listPIDs(dst []int) ([]int, error) {
	var r statReader
	return r.reader().List(dst)
}

// scanAll reads every process on the machine.
func scanAll(r *statReader, pids []int, dst []procStat) ([]procStat, []int) {
	pids, _ = r.reader().List(pids[:0])
	dst = dst[:0]
	for _, pid := range pids {
		if st, ok := r.read(pid); ok {
			dst = append(dst, st)
		}
	}
	return dst, pids
}

// descendants returns root and every process whose chain of parents leads
// to it, from one scan of the process table. Root is absent when it is gone.
func descendants(all []procStat, root int, dst []int) []int {
	dst = dst[:0]
	found := false
	for _, st := range all {
		if st.PID == root {
			found = true
			break
		}
	}
	if !found {
		return dst
	}
	dst = append(dst, root)
	// Breadth-first over the parent links; the process table is small
	// (hundreds), so the quadratic worst case is cheaper than a map.
	for i := 0; i < len(dst); i++ {
		parent := dst[i]
		for _, st := range all {
			if st.PPID == parent && st.PID != parent {
				dst = append(dst, st.PID)
			}
		}
	}
	return dst
}

// childTimes reports whether the platform counts the CPU of waited-for
// children in their parent (Linux's cutime and cstime); without it a child
// that exits keeps what it had at its last sample.
var childTimes = local.OS.Capabilities().ChildTimes
