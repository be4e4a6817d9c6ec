package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// BootTimeout bounds a stack's start: spawn → first 200 on its health path.
const BootTimeout = 60 * time.Second

// StopGrace is how long a stack gets after SIGTERM before SIGKILL.
const StopGrace = 5 * time.Second

// buildStacks runs every stack's build command in its directory, logging to
// logs/<stack>.build.log. A failed build stops the run before anything is
// measured, with the tail of the log.
func (r *runner) buildStacks(ctx context.Context) error {
	if err := os.MkdirAll(r.logsDir(), 0o755); err != nil {
		return err
	}
	for _, s := range r.opt.Plan.Stacks {
		if s.Build == "" {
			continue
		}
		t0 := time.Now()
		r.progress.logf("build %s: %s", s.Name, s.Build)
		logPath := filepath.Join(r.logsDir(), s.Name+".build.log")
		if err := runShell(ctx, s.Dir, s.Build, logPath, nil); err != nil {
			return fmt.Errorf("build stack %q (%s, in %s): %v\n%s\nfix the build, or run it by hand in that directory to see why", s.Name, s.Build, s.Dir, err, tail(logPath, 2000))
		}
		r.progress.logf("build %s: done in %.1fs", s.Name, time.Since(t0).Seconds())
	}
	return nil
}

// runShell runs a command with /bin/sh -c in dir, output appended to logPath.
func runShell(ctx context.Context, dir, command, logPath string, env []string) error {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd.Run()
}

// tail returns the last max bytes of a file, for error messages.
func tail(path string, max int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(b) > max {
		b = b[len(b)-max:]
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimRight(string(b), "\n")
}

// stackEnv is what the harness adds to a stack's environment; the stack's
// own env entries come last and win.
func (r *runner) stackEnv(s plan.Stack, port int) []string {
	env := []string{
		fmt.Sprintf("PORT=%d", port),
		"JWT_SECRET=" + r.opt.Plan.JWTSecret,
		"NODE_ENV=production",
		"STACKBENCH_WORKLOAD=" + r.opt.Plan.Workload,
	}
	if r.dbURL != "" {
		env = append(env, "DATABASE_URL="+r.dbURL)
	}
	for _, k := range s.EnvOrder {
		env = append(env, k+"="+s.Env[k])
	}
	return env
}

// startStack starts a fresh process of a stack on a free port.
func (r *runner) startStack(ctx context.Context, s plan.Stack) (*proc.Process, error) {
	port, err := proc.FreePort()
	if err != nil {
		return nil, err
	}
	r.seq[s.Name]++
	return proc.Start(ctx, proc.Spec{
		Name:        s.Name,
		Dir:         s.Dir,
		Command:     s.Start,
		Env:         r.stackEnv(s, port),
		Port:        port,
		HealthPath:  s.Health,
		LogPath:     filepath.Join(r.logsDir(), s.Name+".log"),
		BootTimeout: BootTimeout,
	})
}

// stackVersions runs each stack's version command (stdout and stderr both:
// `java -version` prints to stderr).
func (r *runner) stackVersions(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, s := range r.opt.Plan.Stacks {
		if s.Version == "" {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		cmd := exec.CommandContext(cctx, "/bin/sh", "-c", s.Version)
		cmd.Dir = s.Dir
		b, err := cmd.CombinedOutput()
		cancel()
		v := strings.TrimSpace(string(b))
		if err != nil {
			v = strings.TrimSpace(v + " (" + err.Error() + ")")
		}
		out[s.Name] = v
	}
	return out
}
