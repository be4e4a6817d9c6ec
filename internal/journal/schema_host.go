package journal

import "time"

// HostEnvironment is host.Environment as the journal records it:
// HostEnvironmentOf converts one, HostEnvironment.Host converts it back.
//
// host.Environment is the machine a run measured on, recorded with its results
// so that two runs can be compared knowingly. Capture fills the machine's
// part; the run fills PostgreSQL and Stacks.
type HostEnvironment struct {
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
	GoVersion  string             `json:"go_version"`
	PostgreSQL *HostPostgreSQL    `json:"postgresql,omitempty"`
	Stacks     []HostStackVersion `json:"stacks,omitempty"`
}

// HostPostgreSQL is host.PostgreSQL as the journal records it:
// HostPostgreSQLOf converts one, HostPostgreSQL.Host converts it back.
//
// host.PostgreSQL is the database server a run used.
type HostPostgreSQL struct {
	Version  string            `json:"version"`
	Settings map[string]string `json:"settings"`
}

// HostStackVersion is host.StackVersion as the journal records it:
// HostStackVersionOf converts one, HostStackVersion.Host converts it back.
//
// host.StackVersion is the output of a stack's version command.
type HostStackVersion struct {
	Stack   string `json:"stack"`
	Command string `json:"command"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
	// Error says why the command failed; its output is kept anyway.
	Error string `json:"error,omitempty"`
}
