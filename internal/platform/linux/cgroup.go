//go:build linux

package linux

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/platform"
)

// cgroupRoot is where the cgroup file systems are mounted; tests point it
// at a recorded tree.
var cgroupRoot = "/sys/fs/cgroup"

// Cgroup returns the cgroup of pid: its v2 path ("0::/docker/abc" gives
// "/docker/abc"), or under cgroup v1 the path of its cpuacct hierarchy
// (the memory one is the same for every container runtime we know). The
// answer is what CgroupUsage takes.
func (OS) Cgroup(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return "", fmt.Errorf("read the cgroup of pid %d: %w", pid, err)
	}
	return parseCgroupFile(b)
}

// parseCgroupFile picks the path to measure from /proc/<pid>/cgroup: the
// cpuacct (v1) line when there is one, else the unified (v2) line.
func parseCgroupFile(b []byte) (string, error) {
	var unified string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "cpuacct" {
				return "v1:" + parts[2], nil
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			unified = parts[2]
		}
	}
	if unified == "" {
		return "", fmt.Errorf("no cpuacct or unified line in /proc/<pid>/cgroup")
	}
	return "v2:" + unified, nil
}

// CgroupUsage reads a cgroup's cumulative CPU time and its resident memory
// (anonymous memory: v1 total_rss, v2 anon; the page cache left out, as a
// process's RSS leaves out files it does not map).
func (OS) CgroupUsage(cgroup string) (platform.CgroupUsage, error) {
	version, path, ok := strings.Cut(cgroup, ":")
	if !ok {
		return platform.CgroupUsage{}, fmt.Errorf("cgroup %q is not one Cgroup returned", cgroup)
	}
	var u platform.CgroupUsage
	switch version {
	case "v1":
		b, err := os.ReadFile(filepath.Join(cgroupRoot, "cpuacct", path, "cpuacct.usage"))
		if err != nil {
			return u, fmt.Errorf("read the CPU of cgroup %s: %w", path, err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return u, fmt.Errorf("cgroup %s: cpuacct.usage %q", path, b)
		}
		u.CPU = time.Duration(ns)
		u.RSSBytes = statField(filepath.Join(cgroupRoot, "memory", path, "memory.stat"), "total_rss")
		u.Processes = countLines(filepath.Join(cgroupRoot, "pids", path, "cgroup.procs"))
		if u.Processes == 0 {
			u.Processes = countLines(filepath.Join(cgroupRoot, "cpuacct", path, "cgroup.procs"))
		}
	case "v2":
		dir := filepath.Join(cgroupRoot, path)
		if _, err := os.Stat(filepath.Join(cgroupRoot, "unified")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "cpu.stat")); err != nil {
				dir = filepath.Join(cgroupRoot, "unified", path) // hybrid layout
			}
		}
		usec := statField(filepath.Join(dir, "cpu.stat"), "usage_usec")
		if usec < 0 {
			return u, fmt.Errorf("read the CPU of cgroup %s: no usage_usec in %s", path, filepath.Join(dir, "cpu.stat"))
		}
		u.CPU = time.Duration(usec) * time.Microsecond
		u.RSSBytes = statField(filepath.Join(dir, "memory.stat"), "anon")
		u.Processes = countLines(filepath.Join(dir, "cgroup.procs"))
	default:
		return u, fmt.Errorf("cgroup %q is not one Cgroup returned", cgroup)
	}
	u.RSSBytes = max(u.RSSBytes, 0)
	return u, nil
}

// statField returns the value of key in a "key value" file, -1 when absent.
func statField(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}
