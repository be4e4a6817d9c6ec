package host

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Environment is the machine a run measured on, recorded with its results
// so that two runs can be compared knowingly. Capture fills the machine's
// part; the run fills PostgreSQL and Stacks.
type Environment struct {
	CapturedAt time.Time `json:"captured_at"`
	Hostname   string    `json:"hostname"`
	// Kernel is the kernel's release and build, as uname -rv prints them.
	Kernel string `json:"kernel"`
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	// CPUModel is the model name of the first CPU; "" when not exposed.
	CPUModel string `json:"cpu_model"`
	// CPUCount is the number of CPUs of the host.
	CPUCount int `json:"cpu_count"`
	// CPUsAvailable is what this process may use: its CPU affinity mask,
	// capped by a cgroup CPU quota.
	CPUsAvailable float64 `json:"cpus_available"`
	// Governor is the CPU frequency governor of CPU 0; "" when the kernel
	// exposes none (common in virtual machines).
	Governor string `json:"governor"`
	// MemoryBytes is MemTotal; MemoryLimitBytes the cgroup limit, 0 if none.
	MemoryBytes      int64 `json:"memory_bytes"`
	MemoryLimitBytes int64 `json:"memory_limit_bytes"`
	// Somaxconn caps every listen backlog (trap T12); 0 when unknown.
	Somaxconn int `json:"somaxconn"`
	// OpenFileLimit is RLIMIT_NOFILE (soft; hard), inherited by the stacks.
	OpenFileLimit     uint64 `json:"open_file_limit"`
	OpenFileLimitHard uint64 `json:"open_file_limit_hard"`
	// GoVersion is the Go release stackbench was built with.
	GoVersion string `json:"go_version"`

	PostgreSQL *PostgreSQL    `json:"postgresql,omitempty"`
	Stacks     []StackVersion `json:"stacks,omitempty"`
}

// PostgreSQL is the database server a run used.
type PostgreSQL struct {
	Version  string            `json:"version"`
	Settings map[string]string `json:"settings"`
}

// StackVersion is the output of a stack's version command.
type StackVersion struct {
	Stack   string `json:"stack"`
	Command string `json:"command"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
	// Error says why the command failed; its output is kept anyway.
	Error string `json:"error,omitempty"`
}

// Capture reads the environment of this machine. Facts that cannot be
// read stay empty; capturing never fails.
func Capture() Environment {
	e := Environment{
		CapturedAt: time.Now().UTC(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		GoVersion:  runtime.Version(),
		CPUModel:   cpuModel(),
		CPUCount:   hostCPUCount(),
		Governor:   readTrimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		Somaxconn:  atoiOr0(readTrimmed("/proc/sys/net/core/somaxconn")),
	}
	e.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		e.Kernel = unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Version[:])
	}
	e.CPUsAvailable = cpusAvailable()
	e.MemoryBytes = memTotalBytes()
	e.MemoryLimitBytes = cgroupMemoryLimit()
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil {
		e.OpenFileLimit, e.OpenFileLimitHard = rl.Cur, rl.Max
	}
	return e
}

// versionTimeout bounds a stack's version command.
const versionTimeout = 30 * time.Second

// CaptureStackVersion runs a stack's version command with /bin/sh -c in
// dir, with env added to ours, and keeps both its stdout and its stderr
// (many runtimes print their version on stderr). Run it outside windows.
func CaptureStackVersion(ctx context.Context, stack, dir, command string, env []string) StackVersion {
	v := StackVersion{Stack: stack, Command: command}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	v.Stdout, v.Stderr = strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String())
	if err != nil {
		v.Error = fmt.Sprintf("version command %q of stack %q: %v", command, stack, err)
	}
	return v
}

// Warnings lists what in the environment may distort a run at the given
// client concurrency (trap T12).
func (e Environment) Warnings(concurrency int) []string {
	var w []string
	if e.Somaxconn > 0 && concurrency > e.Somaxconn {
		w = append(w, fmt.Sprintf("concurrency %d exceeds net.core.somaxconn (%d): the kernel caps every listen backlog there, so connection bursts may be dropped; raise it with sysctl -w net.core.somaxconn=%d", concurrency, e.Somaxconn, concurrency*2))
	}
	// Each connection is a descriptor in the stack and one in the load
	// generator; leave room for files, the database pool and the runtime.
	const spareDescriptors = 256
	if e.OpenFileLimit > 0 && uint64(concurrency)+spareDescriptors > e.OpenFileLimit {
		w = append(w, fmt.Sprintf("concurrency %d is close to the open-file limit (%d): connections may fail with 'too many open files'; raise it with ulimit -n", concurrency, e.OpenFileLimit))
	}
	if e.Governor != "" && e.Governor != "performance" {
		w = append(w, fmt.Sprintf("the CPU frequency governor is %q, not \"performance\": clock speed changes with load and adds noise", e.Governor))
	}
	return w
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

// cpusAvailable is the affinity mask's size capped by a cgroup v2 quota.
func cpusAvailable() float64 {
	n := float64(runtime.NumCPU())
	quota := strings.Fields(readTrimmed(filepath.Join(cgroupDir(), "cpu.max")))
	if len(quota) == 2 && quota[0] != "max" {
		q, err1 := strconv.ParseFloat(quota[0], 64)
		p, err2 := strconv.ParseFloat(quota[1], 64)
		if err1 == nil && err2 == nil && p > 0 {
			n = min(n, q/p)
		}
	}
	return n
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
