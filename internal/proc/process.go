package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// Spec says how to start one stack.
type Spec struct {
	Name string
	// Dir is the working directory; Command runs there with /bin/sh -c
	// (see shellCommand).
	Dir     string
	Command string
	// Env is added to the harness's own environment (os.Environ).
	Env []string
	// Port is the TCP port the stack listens on, on 127.0.0.1.
	Port int
	// HealthPath is polled until it answers 200, e.g. "/health"; for
	// HealthProtocol "grpc", the method called ("/saas.Users/Health").
	HealthPath string
	// HealthProtocol is how the health path is asked: "" or "http1" a
	// GET over HTTP/1.1; "h2c" the GET over HTTP/2 in cleartext (prior
	// knowledge); "h2" over HTTP/2 (TLS); "grpc" a unary call with an
	// empty message over HTTP/2, answered when its grpc-status is 0.
	HealthProtocol string
	// HealthCA, when set, makes the health request over TLS (https),
	// trusting these certificates (PEM) only.
	HealthCA []byte
	// LogPath receives stdout and stderr, appended.
	LogPath string
	// BootTimeout bounds the wait for the first 200.
	BootTimeout time.Duration
	// CPUs is the stack's lane under placement: lanes, set as the shell's
	// affinity at spawn so that the server and everything it starts
	// inherit it; empty leaves the harness's mask.
	CPUs cpuset.Set
	// Container is set when Command runs the server in a container (in
	// the foreground): the server is then measured through its cgroup.
	Container *Container
	// Spawned, when set, is called as soon as the command is spawned,
	// before the health poll, with the root process's pid (the leader of
	// its process group) and the mark of everything it starts (MarkEnv):
	// what a harness killed during the boot must have recorded to stop a
	// stack that daemonized.
	Spawned func(pid int, mark string)
}

// Process is a running stack started by Start.
type Process struct {
	spec      Spec
	cmd       *exec.Cmd
	log       *os.File
	logOffset int64 // where this run's output starts in the log
	boot      time.Duration
	readyAt   time.Time

	// containerPID and cgroup are the container's main process and its
	// cgroup, for a Spec with a Container.
	containerPID int
	cgroup       string

	done    chan struct{} // closed when the root process has exited
	waitErr error         // set before done is closed

	stopOnce sync.Once
	stopErr  error

	// mark is the value of MarkEnv this process and everything it starts
	// inherit (mark.go).
	mark string
}

// Mark returns the value of MarkEnv in the environment of the stack's
// processes.
func (p *Process) Mark() string { return p.mark }

// Start starts s and returns once its health path answered 200. The port
// must be free; an error names the process holding it. When the stack
// exits during boot or does not answer within BootTimeout, its tree is
// stopped and the error carries the tail of its log.
func Start(ctx context.Context, s Spec) (*Process, error) {
	if err := checkSpec(s); err != nil {
		return nil, err
	}
	if err := portFree(s.Port); err != nil {
		return nil, fmt.Errorf("start stack %q: %w", s.Name, err)
	}
	log, offset, err := openLog(s)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("/bin/sh", "-c", shellCommand(s.Command))
	cmd.Dir = s.Dir
	mark := newMark(s.Name)
	cmd.Env = append(append(os.Environ(), s.Env...), MarkEnv+"="+mark)
	if s.Container != nil {
		c := *s.Container
		if c.Name == "" {
			c.Name = fmt.Sprintf("stackbench-%s-%d", strings.ToLower(s.Name), s.Port)
		}
		if c.Env == nil {
			c.Env = s.Env // the runtime's commands reach the daemon docker run does
		}
		s.Container = &c
		cmd.Env = append(cmd.Env, ContainerNameEnv+"="+c.Name)
	}
	cmd.Stdout = log
	cmd.Stderr = log
	// If the harness dies, the platform kills the group (a parent-death
	// signal on Linux, a watchdog on macOS); Stop handles the rest of the
	// tree in normal operation.
	local.Group(cmd)
	p := &Process{spec: s, cmd: cmd, log: log, logOffset: offset, done: make(chan struct{}), mark: mark}
	spawned := time.Now()
	if err := local.Start(cmd, s.CPUs); err != nil {
		log.Close()
		return nil, fmt.Errorf("start stack %q: run %q in %s: %w", s.Name, s.Command, s.Dir, err)
	}
	go p.wait()
	if s.Spawned != nil {
		s.Spawned(cmd.Process.Pid, mark)
	}
	ready, err := pollHealth(ctx, s, p.done, spawned)
	if err != nil {
		err = wrongPort(err, s, p.PID())
		tail := p.LogTail()
		p.Stop(2 * time.Second)
		return nil, fmt.Errorf("start stack %q: %w%s", s.Name, err, formatTail(s.LogPath, tail))
	}
	p.boot, p.readyAt = ready.Sub(spawned), ready
	if s.Container != nil {
		if err := p.attachContainer(ctx); err != nil {
			p.Stop(2 * time.Second)
			return nil, fmt.Errorf("start stack %q: %w", s.Name, err)
		}
	}
	if err := p.Check(); err != nil {
		p.Stop(2 * time.Second)
		return nil, fmt.Errorf("start stack %q: answered health but %w", s.Name, err)
	}
	return p, nil
}

func checkSpec(s Spec) error {
	switch {
	case s.Command == "":
		return fmt.Errorf("start stack %q: no command given", s.Name)
	case s.Port <= 0 || s.Port > 65535:
		return fmt.Errorf("start stack %q: port %d is not a TCP port", s.Name, s.Port)
	case !strings.HasPrefix(s.HealthPath, "/"):
		return fmt.Errorf("start stack %q: health path %q must start with /", s.Name, s.HealthPath)
	case s.LogPath == "":
		return fmt.Errorf("start stack %q: no log path given", s.Name)
	case s.BootTimeout <= 0:
		return fmt.Errorf("start stack %q: boot timeout must be positive", s.Name)
	}
	return nil
}

// portFree returns an error naming the holder when port is taken.
func portFree(port int) error {
	if pid, cmdline, ok := PortHolder(port); ok {
		return fmt.Errorf("port %d is in use by pid %d (%s); stop that process or choose another port", port, pid, cmdline)
	}
	if portInUse(port) {
		return fmt.Errorf("port %d is in use by a process we cannot see (another user?); stop it or choose another port", port)
	}
	return nil
}

// The size past which a stack's log is cut when a process of it starts,
// and what of it is kept: a stack started fresh every round appends a
// start's worth each time (four runs of one app wrote 261 MB), and only
// the latest output explains a failure (formatTail reads the end).
const (
	MaxLogBytes  = 32 << 20
	KeepLogBytes = 1 << 20
)

// capLog cuts the log at path to its last KeepLogBytes when it holds more
// than MaxLogBytes, saying so at its top; a missing log is left alone.
func capLog(path string) error {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() <= MaxLogBytes {
		return nil // a symlink planted there is refused when the log opens
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	tail := make([]byte, KeepLogBytes)
	n, err := f.ReadAt(tail, st.Size()-KeepLogBytes)
	f.Close()
	if err != nil && err != io.EOF {
		return err
	}
	tail = tail[:n]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:] // from a whole line
	}
	head := fmt.Sprintf("=== stackbench: this log reached %d MiB and was cut to its last %d KiB at %s\n",
		st.Size()>>20, len(tail)>>10, time.Now().UTC().Format(time.RFC3339))
	return fileutil.WriteFile(path, append([]byte(head), tail...), 0o600)
}

func openLog(s Spec) (*os.File, int64, error) {
	if err := capLog(s.LogPath); err != nil {
		return nil, 0, fmt.Errorf("start stack %q: cut its log %s: %w", s.Name, s.LogPath, err)
	}
	// No-follow: a symlink planted at the log's path must not send the
	// stack's output into its target.
	f, err := os.OpenFile(s.LogPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND|local.NoFollow, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("start stack %q: open its log: %w", s.Name, err)
	}
	fmt.Fprintf(f, "=== stackbench: start %s at %s in %s: %s\n", s.Name, time.Now().UTC().Format(time.RFC3339Nano), s.Dir, s.Command)
	offset, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("start stack %q: log %s: %w", s.Name, s.LogPath, err)
	}
	return f, offset, nil
}

// wait reaps the root process and records how it ended.
func (p *Process) wait() {
	p.waitErr = p.cmd.Wait()
	p.log.Close() // the stack's tree holds its own descriptors
	close(p.done)
}

// PID returns the process id of the root of the tree (the shell running
// Command, or the stack itself when the shell exec'd it). It is also the
// process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// BootDuration is the time from spawn to the first 200 of the health path.
func (p *Process) BootDuration() time.Duration { return p.boot }

// ReadyAt is when the first 200 of the health path arrived.
func (p *Process) ReadyAt() time.Time { return p.readyAt }

// Name returns the stack's name from its Spec.
func (p *Process) Name() string { return p.spec.Name }

// Port returns the port the stack listens on.
func (p *Process) Port() int { return p.spec.Port }

// exited reports whether the root process has exited.
func (p *Process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Check returns nil when the root process is alive and its tree still owns
// the socket listening on the port (trap T11): a dead server, or another
// process answering on the port, is an error.
func (p *Process) Check() error {
	if p.exited() {
		return fmt.Errorf("stack %q died: %s%s", p.spec.Name, exitStatus(p.waitErr), formatTail(p.spec.LogPath, p.LogTail()))
	}
	owners, listening := local.OS.Listeners(p.spec.Port)
	if !listening {
		return fmt.Errorf("stack %q (pid %d) no longer listens on port %d%s", p.spec.Name, p.PID(), p.spec.Port, formatTail(p.spec.LogPath, p.LogTail()))
	}
	if p.Holds(owners...) {
		return nil
	}
	if pid, cmdline, ok := PortHolder(p.spec.Port); ok {
		return fmt.Errorf("stack %q (pid %d) does not own port %d: pid %d (%s) listens there", p.spec.Name, p.PID(), p.spec.Port, pid, cmdline)
	}
	return fmt.Errorf("stack %q (pid %d) does not own port %d: a process we cannot see listens there", p.spec.Name, p.PID(), p.spec.Port)
}

func exitStatus(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if sig := local.ExitSignal(ee.ProcessState); sig != "" {
			return "killed by signal " + sig
		}
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	if err != nil {
		return err.Error()
	}
	return "exit status 0"
}

// LogTail returns the end of what this run of the stack wrote to its log
// (fileutil.Tail).
func (p *Process) LogTail() string { return fileutil.Tail(p.spec.LogPath, p.logOffset) }

func formatTail(path, tail string) string {
	if tail == "" {
		return " (its log " + path + " is empty)"
	}
	return "; last lines of " + path + ":\n" + indent(tail)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// shellSyntax holds the characters that make a command more than one
// program with plain arguments: operators, redirections, quoting,
// expansions, globs and comments.
const shellSyntax = "|&;<>()$`\\\"'*?[]#~{}!\n"

// shellBuiltins are first words that name no program to exec.
var shellBuiltins = map[string]bool{
	"exec": true, "cd": true, "export": true, "set": true, "ulimit": true, "umask": true,
	".": true, "source": true, "eval": true, "trap": true, "wait": true, "true": true, ":": true,
}

// shellCommand is what /bin/sh -c runs for a start command. A simple command
// (one program and its arguments, no shell syntax, no leading VAR=value) is
// run with exec, so the shell becomes the stack instead of staying as its
// parent: dash, the usual /bin/sh, does not do that by itself, and its
// ~1.7 MiB of RSS would be counted in the stack's memory. Anything else runs
// as written, and its shell is part of the stack's tree.
func shellCommand(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 || strings.ContainsAny(command, shellSyntax) || strings.Contains(f[0], "=") || shellBuiltins[f[0]] {
		return command
	}
	return "exec " + command
}
