package run

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// containerLine starts a line of serversFile that names a container:
// "container RUNTIME NAME".
const containerLine = "container"

// rememberContainer records a container stack's container in serversFile,
// so that a resume removes it when a harness killed with SIGKILL left it
// running (the container runs under the runtime's daemons, which no
// signal to the harness's process groups reaches).
func (l leftovers) rememberContainer(p *proc.Process) {
	c := p.Container()
	if c == nil {
		return
	}
	l.note(fmt.Sprintf("%s %s %s", containerLine, c.Runtime, c.Name))
}

// removeContainer removes a container an earlier invocation left; env is
// its stack's env: (which may name the daemon).
func (l leftovers) removeContainer(runtime, name string, env []string) {
	if removed, _ := proc.RemoveContainer(context.Background(), &proc.Container{Runtime: runtime, Name: name, Env: env}); removed {
		l.event(journal.LevelWarning, "", "removed container %s, left running by the stopped run", name)
	}
}

// containerGroups are, when a live stack runs in a container, the
// runtime's command of each such stack and (once) the runtime's daemons:
// they work for the stacks without being their servers, so they are the
// harness's overhead, measured apart and kept out of foreign CPU (trap
// T21). None when no stack runs in a container.
func (l *localSite) containerGroups() []proc.Group {
	var gs []proc.Group
	for name, s := range l.p.live {
		p := l.procs[s]
		if p == nil {
			continue
		}
		if g, ok := p.RuntimeGroup("container-runtime-" + name); ok {
			gs = append(gs, g)
		}
	}
	if len(gs) > 0 {
		gs = append(gs, proc.DaemonsGroup("container-daemons"))
	}
	return gs
}

// containerAllowed reports whether a container line of
// servers.pids names what a stack of this run could have started
// (containerStack).
func (l leftovers) containerAllowed(runtime, name string) bool {
	_, ok := l.containerStack(runtime, name)
	return ok
}

// containerStack is the stack of this run that could have started the
// container name of runtime: a container stack of the comparison file
// whose runtime it is (not a program the results directory names), the
// name of the form stackbench-<stack>-<port>, or
// stackbench-<stack>.<n>-<port> as a server host's agent names the n-th
// process of the stack.
func (l leftovers) containerStack(runtime, name string) (plan.Stack, bool) {
	if !slices.Contains(plan.ContainerRuntimes, runtime) {
		return plan.Stack{}, false
	}
	for _, s := range l.stacks {
		if s.Container == nil || (s.Container.Runtime != "" && s.Container.Runtime != runtime) {
			continue
		}
		rest, ok := strings.CutPrefix(name, "stackbench-"+strings.ToLower(s.Name))
		if !ok {
			continue
		}
		n, port, ok := strings.Cut(rest, "-")
		if ok && numeric(port) && (n == "" || strings.HasPrefix(n, ".") && numeric(n[1:])) {
			return s, true
		}
	}
	return plan.Stack{}, false
}

func numeric(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != "" && s[0] != '-' && s[0] != '+'
}
