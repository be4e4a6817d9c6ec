package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/platform/local"
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
	f := local.OS.Facts()
	e := Environment{
		CapturedAt:        time.Now().UTC(),
		OS:                runtime.GOOS,
		Arch:              runtime.GOARCH,
		GoVersion:         runtime.Version(),
		Kernel:            f.Kernel,
		CPUModel:          f.CPUModel,
		CPUCount:          f.CPUCount,
		Governor:          f.Governor,
		Somaxconn:         f.Somaxconn,
		MemoryBytes:       f.MemoryBytes,
		MemoryLimitBytes:  f.MemoryLimitBytes,
		OpenFileLimit:     f.OpenFileLimit,
		OpenFileLimitHard: f.OpenFileLimitHard,
	}
	if e.CPUCount == 0 {
		e.CPUCount = runtime.NumCPU()
	}
	e.Hostname, _ = os.Hostname()
	// The affinity mask's size capped by a cgroup quota.
	e.CPUsAvailable = float64(runtime.NumCPU())
	if f.CPUQuota > 0 {
		e.CPUsAvailable = min(e.CPUsAvailable, f.CPUQuota)
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
