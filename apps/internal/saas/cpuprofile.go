package saas

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// CPUProfileEnv is the environment variable that asks a reference server
// for a CPU profile of its whole serving time, written when it stops on
// SIGTERM. `stackbench pgo` sets it to collect a build profile (apps/nethttp-pgx-pgo/cpu.pgo).
const CPUProfileEnv = "STACKBENCH_CPUPROFILE"

// WithCPUProfile runs serve; when path is not empty, it records a CPU
// profile (runtime/pprof) for as long as serve runs and writes it to path
// before returning. Servers call it around their serving loop, so the
// profile ends after the graceful shutdown and is complete when the process
// exits.
func WithCPUProfile(path string, serve func() error) error {
	if path == "" {
		return serve()
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%s: create the CPU profile: %w", CPUProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: start the CPU profile: %w", CPUProfileEnv, err)
	}
	serveErr := serve()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		return errors.Join(serveErr, fmt.Errorf("%s: write the CPU profile %s: %w", CPUProfileEnv, path, err))
	}
	return serveErr
}
