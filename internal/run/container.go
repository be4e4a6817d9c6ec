package run

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
	f, err := os.OpenFile(filepath.Join(l.dir, serversFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, privateFileMode)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %s %s\n", containerLine, c.Runtime, c.Name)
	f.Close()
}

// removeContainer removes a container an earlier invocation left.
func (l leftovers) removeContainer(runtime, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, runtime, "rm", "--force", name).CombinedOutput()
	if err == nil && len(out) > 0 {
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
	for name, s := range l.r.live {
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
// servers.pids names what a stack of this run could have started: the
// runtime of a container stack of the comparison file (not a program the
// results directory names) and a name of the form stackbench-<stack>-<port>.
func (l leftovers) containerAllowed(runtime, name string) bool {
	if !slices.Contains(plan.ContainerRuntimes, runtime) {
		return false
	}
	for _, s := range l.stacks {
		if s.Container == nil || (s.Container.Runtime != "" && s.Container.Runtime != runtime) {
			continue
		}
		port, ok := strings.CutPrefix(name, "stackbench-"+strings.ToLower(s.Name)+"-")
		if _, err := strconv.Atoi(port); ok && err == nil {
			return true
		}
	}
	return false
}
