package cpuset

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// Supported reports whether this platform has CPU affinity, which lanes
// need (macOS has none).
func Supported() bool { return local.OS.Capabilities().Affinity }

// Affinity returns the CPUs this process may run on: its affinity mask (a
// cgroup cpuset is already part of it), not the host's CPU count. Where
// the platform has no affinity (macOS) the error wraps
// errors.ErrUnsupported.
func Affinity() (Set, error) {
	cpus, err := local.OS.Affinity()
	if err != nil {
		return nil, err
	}
	return Of(cpus...), nil
}

// sysCPU is where the kernel describes each CPU's topology; tests point it
// elsewhere.
var sysCPU = "/sys/devices/system/cpu"

// Cores groups the CPUs of s by physical core, from the kernel's
// thread_siblings_list, in the order of their lowest CPU. A CPU whose
// topology cannot be read is a core of its own.
func Cores(s Set) []Set {
	var cores []Set
	seen := map[int]bool{}
	for _, c := range s {
		if seen[c] {
			continue
		}
		core := Of(c)
		b, err := os.ReadFile(filepath.Join(sysCPU, "cpu"+strconv.Itoa(c), "topology", "thread_siblings_list"))
		if err == nil {
			if sib, err := Parse(strings.TrimSpace(string(b))); err == nil && len(sib.Intersect(s)) > 0 {
				core = sib.Intersect(s).Union(core)
			}
		}
		for _, x := range core {
			seen[x] = true
		}
		cores = append(cores, core)
	}
	return cores
}

// Start starts cmd with its CPU affinity set to s, so that the process and
// every thread and child it ever makes inherit the lane (see
// platform/local.Start). An empty s starts cmd as it is.
func Start(cmd *exec.Cmd, s Set) error { return local.Start(cmd, s) }

// Allowed returns the CPUs the process pid may run on: the union over all
// its threads, so a thread that left its lane shows.
func Allowed(pid int) (Set, error) {
	cpus, err := local.OS.AllowedCPUs(pid)
	if err != nil {
		return nil, err
	}
	return Of(cpus...), nil
}

// AllowedAll is Allowed over several processes (a process tree): the union
// of their CPUs. Processes that exited while it read are left out.
func AllowedAll(pids []int) Set {
	var all Set
	for _, pid := range pids {
		if s, err := Allowed(pid); err == nil {
			all = all.Union(s)
		}
	}
	return all
}

// Pin sets the affinity of every thread of the running processes pids to
// s: for a tree that was started before its lane was known (a database
// cluster left running by an earlier harness). Children forked later
// inherit it; a process that exits meanwhile is skipped.
func Pin(pids []int, s Set) error { return local.OS.Pin(pids, s) }
