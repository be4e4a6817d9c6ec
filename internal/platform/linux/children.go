//go:build linux

package linux

import (
	"os"
	"strconv"

	"github.com/stackbench/stackbench/internal/platform"
)

// childrenSupported reports whether the kernel has
// /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN), which lets the
// sampler walk a tree without reading every process on the machine.
var childrenSupported = func() bool {
	pid := strconv.Itoa(os.Getpid())
	_, err := os.Stat("/proc/" + pid + "/task/" + pid + "/children")
	return err == nil
}()

// Children appends the children of every thread of the process, from the
// children files. The kernel documents these files as possibly missing a
// child forked or re-parented while they are read; samplers scan the whole
// process table at a window's two snapshots instead.
func (r *Reader) Children(p platform.Proc, dst []int) ([]int, bool) {
	if !childrenSupported {
		return dst, false
	}
	if p.Threads <= 1 {
		r.path = append(r.path[:0], "/proc/"...)
		r.path = strconv.AppendInt(r.path, int64(p.PID), 10)
		r.path = append(r.path, "/task/"...)
		r.path = strconv.AppendInt(r.path, int64(p.PID), 10)
		r.path = append(r.path, "/children"...)
		n, err := r.readFile(r.path, r.kidsBuf[:])
		if err != nil {
			return dst, true
		}
		return parseChildren(r.kidsBuf[:n], dst), true
	}
	pid := strconv.Itoa(p.PID)
	f, err := os.Open("/proc/" + pid + "/task")
	if err != nil {
		return dst, true
	}
	tids, _ := f.Readdirnames(-1)
	f.Close()
	for _, tid := range tids {
		dst = r.readChildren("/proc/"+pid+"/task/"+tid+"/children", dst)
	}
	return dst, true
}

// readChildren reads a children file.
func (r *Reader) readChildren(path string, dst []int) []int {
	n, err := readSmall(path, r.kidsBuf[:])
	if err != nil {
		return dst
	}
	return parseChildren(r.kidsBuf[:n], dst)
}

// parseChildren parses a children file: pids separated by spaces.
func parseChildren(b []byte, dst []int) []int {
	v, in := 0, false
	for _, c := range b {
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
