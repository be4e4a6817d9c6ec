package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// Container says that a stack's start command runs its server in a
// container (docker run or podman run in the foreground): the server then
// lives under the runtime's daemons, outside the harness's process tree,
// and is measured through the container's cgroup instead (trap T21).
type Container struct {
	// Runtime is the runtime's command: "docker" or "podman".
	Runtime string
	// Name is the container's --name, unique per start.
	Name string
	// Env is added to the harness's environment for the runtime's
	// commands (inspect, stop, rm): Start sets the start's own, so that
	// a stack whose env: names the daemon (DOCKER_HOST) is inspected and
	// removed on the daemon that runs it.
	Env []string
}

// ContainerNameEnv is the variable through which Start gives the start
// command the container's name, new for every start: the command passes
// it to --name.
const ContainerNameEnv = "STACKBENCH_CONTAINER"

// Fresh returns a copy of c without a name, for another start (Start names
// it); nil for nil.
func (c *Container) Fresh() *Container {
	if c == nil {
		return nil
	}
	return &Container{Runtime: c.Runtime}
}

// RSSBytes is the resident memory of the stack's server now: its tree's,
// or its container's (anonymous) memory.
func (p *Process) RSSBytes() int64 {
	if p.cgroup != "" {
		u, err := local.OS.CgroupUsage(p.cgroup)
		if err != nil {
			return 0
		}
		return u.RSSBytes
	}
	return TreeRSSBytes(p.PID())
}

// RunLabel is the label every container stackbench starts carries; its
// value names the run, so that leftovers of a killed run can be found and
// removed.
const RunLabel = "dev.stackbench.run"

// runtimeTimeout bounds one inspect, stop or rm of the runtime.
const runtimeTimeout = 30 * time.Second

// runtimeDaemons are the processes of the container runtimes that work for
// a running container without being in its cgroup: their CPU is the
// harness's overhead, not foreign.
var runtimeDaemons = []string{"dockerd", "containerd", "containerd-shim", "containerd-shim-runc-v2", "docker-proxy", "conmon", "podman", "runc", "crun"}

func runtimeCmd(ctx context.Context, c *Container, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, runtimeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Runtime, args...)
	if len(c.Env) > 0 {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", c.Runtime, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// attachContainer finds the container's main process and its cgroup.
func (p *Process) attachContainer(ctx context.Context) error {
	c := p.spec.Container
	out, err := runtimeCmd(ctx, c, "inspect", "--format", "{{.State.Pid}}", c.Name)
	if err != nil {
		return fmt.Errorf("find the container %s: %w", c.Name, err)
	}
	pid, err := strconv.Atoi(out)
	if err != nil || pid <= 0 {
		return fmt.Errorf("find the container %s: %s inspect gave pid %q; is it running?", c.Name, c.Runtime, out)
	}
	cg, err := local.OS.Cgroup(pid)
	if err != nil {
		return fmt.Errorf("find the cgroup of container %s (pid %d): %w", c.Name, pid, err)
	}
	p.containerPID, p.cgroup = pid, cg
	return nil
}

// Container is the Spec's container, nil for a native stack.
func (p *Process) Container() *Container { return p.spec.Container }

// InContainer reports whether the stack's server runs in a container.
func (p *Process) InContainer() bool { return p.cgroup != "" }

// ContainerPID is the container's main process (0 when not in a container).
func (p *Process) ContainerPID() int { return p.containerPID }

// Group is the process group to measure for the stack's server: its
// process tree, or the cgroup of its container.
func (p *Process) Group(name string) Group {
	if p.cgroup != "" {
		return CgroupGroup(name, p.cgroup)
	}
	return TreeGroup(name, p.PID())
}

// RuntimeGroup is, for a container stack, the tree of the runtime's
// command the harness started (docker run in the foreground): it works for
// the stack without being its server, so it counts as the harness's
// overhead. ok is false for a native stack.
func (p *Process) RuntimeGroup(name string) (Group, bool) {
	if p.cgroup == "" {
		return Group{}, false
	}
	return TreeGroup(name, p.PID()), true
}

// DaemonsGroup is the container runtimes' daemons and shims running now
// (dockerd, containerd, containerd-shim, conmon, …): their CPU is the
// harness's overhead, not foreign CPU. They are found when this is
// called, so call it when a window is set up, and once per sampler.
func DaemonsGroup(name string) Group {
	var r statReader
	all, _ := scanAll(&r, nil, nil)
	var pids []int
	for _, st := range all {
		if slices.Contains(runtimeDaemons, filepath.Base(firstWord(local.OS.Cmdline(st.PID)))) {
			pids = append(pids, st.PID)
		}
	}
	return Group{Name: name, PIDs: func() []int { return pids }}
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// Holds reports whether one of the processes owners is in the stack's
// tree or in its container (a port's holders, say).
func (p *Process) Holds(owners ...int) bool {
	for _, pid := range TreePIDs(p.PID()) {
		if slices.Contains(owners, pid) {
			return true
		}
	}
	if p.cgroup == "" {
		return false
	}
	for _, pid := range owners {
		if cg, err := local.OS.Cgroup(pid); err == nil && cg == p.cgroup {
			return true
		}
	}
	return false
}

// stopContainer stops the container (SIGTERM, then SIGKILL after grace)
// and removes it; the runtime's command then exits by itself.
func (p *Process) stopContainer(grace time.Duration) error {
	c := p.spec.Container
	ctx := context.Background()
	secs := strconv.Itoa(max(int(grace.Round(time.Second)/time.Second), 1))
	_, stopErr := runtimeCmd(ctx, c, "stop", "--time", secs, c.Name)
	runtimeCmd(ctx, c, "rm", "--force", c.Name) // --rm may have removed it already
	if stopErr != nil && !noSuchContainer(stopErr.Error()) {
		return fmt.Errorf("stop container %s of stack %q: %w", c.Name, p.spec.Name, stopErr)
	}
	return nil
}

// RemoveContainer removes the container c names, running or not (one a
// stopped run left); removed is false when there was none.
func RemoveContainer(ctx context.Context, c *Container) (removed bool, err error) {
	out, err := runtimeCmd(ctx, c, "rm", "--force", c.Name)
	switch {
	case noSuchContainer(out) || err != nil && noSuchContainer(err.Error()):
		// docker rm --force says so and exits 0; podman may fail.
		return false, nil
	case err != nil:
		return false, err
	}
	return out != "", nil
}

func noSuchContainer(out string) bool {
	return strings.Contains(strings.ToLower(out), "no such container")
}

// RemoveLeftoverContainers removes every container of runtime that carries
// RunLabel with the given value (a run killed before it could remove its
// own), and returns their names.
func RemoveLeftoverContainers(ctx context.Context, runtime, run string) ([]string, error) {
	c := &Container{Runtime: runtime}
	out, err := runtimeCmd(ctx, c, "ps", "--all", "--filter", "label="+RunLabel+"="+run, "--format", "{{.Names}}")
	if err != nil || out == "" {
		return nil, err
	}
	names := strings.Fields(out)
	_, err = runtimeCmd(ctx, c, append([]string{"rm", "--force"}, names...)...)
	return names, err
}
