package proc

import (
	"os"
	"strconv"
)

// childrenSupported reports whether the kernel has
// /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN), which lets the
// sampler walk a tree without reading every process on the machine.
var childrenSupported = func() bool {
	pid := strconv.Itoa(os.Getpid())
	_, err := os.Stat("/proc/" + pid + "/task/" + pid + "/children")
	return err == nil
}()

// walkTree appends to dst the stats of root and its descendants, found
// through the children files of every thread of every member. The kernel
// documents these files as possibly missing a child forked or re-parented
// while they are read; the opening and closing snapshots scan the whole
// process table instead.
func (w *watch) walkTree(root int, dst []procStat) []procStat {
	st, ok := w.reader.read(root)
	if !ok {
		return dst
	}
	start := len(dst)
	dst = append(dst, st)
	for i := start; i < len(dst); i++ {
		w.kids = w.childrenOf(dst[i], w.kids[:0])
		for _, kid := range w.kids {
			if st, ok := w.reader.read(kid); ok && st.ppid == dst[i].pid {
				dst = append(dst, st)
			}
		}
	}
	return dst
}

// childrenOf appends the children of every thread of the process.
func (w *watch) childrenOf(st procStat, dst []int) []int {
	pid := strconv.Itoa(st.pid)
	if st.threads <= 1 {
		return w.readChildren("/proc/"+pid+"/task/"+pid+"/children", dst)
	}
	f, err := os.Open("/proc/" + pid + "/task")
	if err != nil {
		return dst
	}
	tids, _ := f.Readdirnames(-1)
	f.Close()
	for _, tid := range tids {
		dst = w.readChildren("/proc/"+pid+"/task/"+tid+"/children", dst)
	}
	return dst
}

// readChildren parses a children file: pids separated by spaces.
func (w *watch) readChildren(path string, dst []int) []int {
	n, err := readSmall(path, w.kidsBuf[:])
	if err != nil {
		return dst
	}
	v, in := 0, false
	for _, c := range w.kidsBuf[:n] {
		if c >= '0' && c <= '9' {
			v, in = v*10+int(c-'0'), true
			continue
		}
		if in {
			dst = append(dst, v)
		}
		v, in = 0, false
	}
	if in {
		dst = append(dst, v)
	}
	return dst
}
