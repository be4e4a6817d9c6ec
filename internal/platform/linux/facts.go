//go:build linux

package linux

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/stackbench/stackbench/internal/platform"
)

// Facts reads the host's facts from /proc, /sys and uname.
func (OS) Facts() platform.Facts {
	f := platform.Facts{
		CPUModel:         cpuModel(),
		CPUCount:         hostCPUCount(),
		CPUQuota:         cgroupCPUQuota(),
		Governor:         readTrimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		Somaxconn:        atoiOr0(readTrimmed("/proc/sys/net/core/somaxconn")),
		MemoryBytes:      memTotalBytes(),
		MemoryLimitBytes: cgroupMemoryLimit(),
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

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func atoiOr0(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// cpuModel returns the first "model name" (x86) or "Model"/"Hardware"
// (ARM) of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name", "Model", "Hardware":
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// hostCPUCount counts the per-CPU lines of /proc/stat.
func hostCPUCount() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return runtime.NumCPU()
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if len(line) > 3 && strings.HasPrefix(line, "cpu") && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return n
}

// cgroupCPUQuota is the CPUs a cgroup v2 quota (cpu.max) allows, 0 for none.
func cgroupCPUQuota() float64 {
	quota := strings.Fields(readTrimmed(filepath.Join(cgroupDir(), "cpu.max")))
	if len(quota) == 2 && quota[0] != "max" {
		q, err1 := strconv.ParseFloat(quota[0], 64)
		p, err2 := strconv.ParseFloat(quota[1], 64)
		if err1 == nil && err2 == nil && p > 0 {
			return q / p
		}
	}
	return 0
}

func memTotalBytes() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func cgroupMemoryLimit() int64 {
	v := readTrimmed(filepath.Join(cgroupDir(), "memory.max"))
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0 // "max" or no cgroup v2
	}
	return n
}

// cgroupDir is this process's cgroup v2 directory.
func cgroupDir() string {
	for _, line := range strings.Split(readTrimmed("/proc/self/cgroup"), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return filepath.Join("/sys/fs/cgroup", rest)
		}
	}
	return "/sys/fs/cgroup"
}
