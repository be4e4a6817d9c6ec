package run

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// serversFile lists, in the results directory, the process groups of the
// servers the run started, each with its leader's start time, the boot it
// ran in and its mark (proc.MarkEnv), so that a resume can stop what a
// harness killed with SIGKILL left running: the children of a start
// command with shell syntax do not die with the harness, nor do the
// processes a stack daemonized. Container stacks add a line of their
// container's ("container RUNTIME NAME", and HOST after it for one on the
// server host: container.go, container_hosts.go).
const serversFile = "servers.pids"

// leftovers is the servers file of a results directory: what this run
// starts is written down as it starts, and what an earlier invocation
// left running is stopped before a resume starts anything.
type leftovers struct {
	dir string
	// stacks are the plan's: a container line names one of theirs or is
	// not acted on.
	stacks []plan.Stack
	event  func(level journal.Level, stack, format string, a ...any)
}

// leftoversOf is the servers file of r's results directory.
func leftoversOf(r *runner) leftovers {
	l := leftovers{dir: r.opt.Dir, event: r.event}
	if r.opt.Plan != nil {
		l.stacks = r.opt.Plan.Stacks
	}
	return l
}

// rememberServer records a started server's process group and mark.
func (l leftovers) rememberServer(pid int, mark string) {
	st, ok := proc.StartTicks(pid)
	if !ok {
		return
	}
	boot := proc.BootID()
	if boot == "" || mark == "" {
		boot, mark = "-", "-"
	}
	l.note(fmt.Sprintf("%d %d %s %s", pid, st, boot, mark))
}

// note appends a line to serversFile.
func (l leftovers) note(line string) {
	f, err := fileutil.OpenIn(l.dir, serversFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, privateFileMode)
	if err != nil {
		return
	}
	fmt.Fprintln(f, line)
	f.Close()
}

// stop kills the process groups of servers a previous invocation
// started that are still there, and forgets them all.
func (l leftovers) stop() {
	path := filepath.Join(l.dir, serversFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var onHosts []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 4 && f[0] == containerLine {
			onHosts = append(onHosts, sc.Text()) // for the hosts phase (stopOnHosts)
			continue
		}
		if len(f) == 3 && f[0] == containerLine {
			if st, ok := l.containerStack(f[1], f[2]); ok {
				l.removeContainer(f[1], f[2], stack.OwnEnv(st))
			} else {
				l.event(journal.LevelWarning, "", "%s names container %s of runtime %q, which no stack of this comparison file starts: not removed", serversFile, f[2], f[1])
			}
			continue
		}
		if len(f) != 4 {
			continue
		}
		// A pid of another boot (or of a line that does not say which)
		// names some other process now: never signalled.
		if boot := proc.BootID(); f[2] != boot || boot == "" {
			l.event(journal.LevelWarning, "", "server process group %s was recorded in another boot of this machine: not signalled", f[0])
			continue
		}
		if n := proc.KillMarked(f[3]); n > 0 {
			l.event(journal.LevelWarning, "", "stopped %d processes carrying the mark of server %s, left running by the stopped run", n, f[0])
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 1 {
			continue
		}
		started, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		// A live leader with another start time is a new process that
		// reused the pid: leave it. A dead leader whose group still has
		// members is ours: a group id cannot be taken by anyone but the
		// process of that pid, so the group is the one the run made.
		if st, ok := proc.StartTicks(pid); ok && st != started {
			continue
		}
		if local.KillGroup(pid) == nil {
			l.event(journal.LevelWarning, "", "stopped server process group %d, left running by the stopped run", pid)
		}
	}
	if len(onHosts) > 0 {
		fileutil.WriteIn(l.dir, serversFile, []byte(strings.Join(onHosts, "\n")+"\n"), privateFileMode)
		return
	}
	os.Remove(path)
}
