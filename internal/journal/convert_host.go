package journal

import "github.com/stackbench/stackbench/internal/host"

// HostEnvironmentOf converts v to its journaled form.
func HostEnvironmentOf(v host.Environment) HostEnvironment {
	return HostEnvironment{
		CapturedAt:        v.CapturedAt,
		Hostname:          v.Hostname,
		Kernel:            v.Kernel,
		OS:                v.OS,
		Arch:              v.Arch,
		CPUModel:          v.CPUModel,
		CPUCount:          v.CPUCount,
		CPUsAvailable:     v.CPUsAvailable,
		Governor:          v.Governor,
		MemoryBytes:       v.MemoryBytes,
		MemoryLimitBytes:  v.MemoryLimitBytes,
		Somaxconn:         v.Somaxconn,
		OpenFileLimit:     v.OpenFileLimit,
		OpenFileLimitHard: v.OpenFileLimitHard,
		GoVersion:         v.GoVersion,
		PostgreSQL:        ConvertPtr(v.PostgreSQL, HostPostgreSQLOf),
		Stacks:            ConvertSlice(v.Stacks, HostStackVersionOf),
	}
}

// Host converts v back to a host.Environment.
func (v HostEnvironment) Host() host.Environment {
	return host.Environment{
		CapturedAt:        v.CapturedAt,
		Hostname:          v.Hostname,
		Kernel:            v.Kernel,
		OS:                v.OS,
		Arch:              v.Arch,
		CPUModel:          v.CPUModel,
		CPUCount:          v.CPUCount,
		CPUsAvailable:     v.CPUsAvailable,
		Governor:          v.Governor,
		MemoryBytes:       v.MemoryBytes,
		MemoryLimitBytes:  v.MemoryLimitBytes,
		Somaxconn:         v.Somaxconn,
		OpenFileLimit:     v.OpenFileLimit,
		OpenFileLimitHard: v.OpenFileLimitHard,
		GoVersion:         v.GoVersion,
		PostgreSQL:        ConvertPtr(v.PostgreSQL, HostPostgreSQL.Host),
		Stacks:            ConvertSlice(v.Stacks, HostStackVersion.Host),
	}
}

// HostPostgreSQLOf converts v to its journaled form.
func HostPostgreSQLOf(v host.PostgreSQL) HostPostgreSQL {
	return HostPostgreSQL{
		Version:  v.Version,
		Settings: v.Settings,
	}
}

// Host converts v back to a host.PostgreSQL.
func (v HostPostgreSQL) Host() host.PostgreSQL {
	return host.PostgreSQL{
		Version:  v.Version,
		Settings: v.Settings,
	}
}

// HostStackVersionOf converts v to its journaled form.
func HostStackVersionOf(v host.StackVersion) HostStackVersion {
	return HostStackVersion{
		Stack:   v.Stack,
		Command: v.Command,
		Stdout:  v.Stdout,
		Stderr:  v.Stderr,
		Error:   v.Error,
	}
}

// Host converts v back to a host.StackVersion.
func (v HostStackVersion) Host() host.StackVersion {
	return host.StackVersion{
		Stack:   v.Stack,
		Command: v.Command,
		Stdout:  v.Stdout,
		Stderr:  v.Stderr,
		Error:   v.Error,
	}
}
