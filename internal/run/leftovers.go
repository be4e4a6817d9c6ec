package run

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/proc"
)

// serversFile lists, in the results directory, the process groups of the
// servers the run started, each with its leader's start time, the boot it
// ran in and its mark (proc.MarkEnv), so that a resume can stop what a
// harness killed with SIGKILL left running: the children of a start
// command with shell syntax do not die with the harness, nor do the
// processes a stack daemonized.
const serversFile = "servers.pids"

// rememberServer records a started server's process group and mark.
func (r *runner) rememberServer(pid int, mark string) {
	st, ok := proc.StartTicks(pid)
	if !ok {
		return
	}
	boot := proc.BootID()
	if boot == "" || mark == "" {
		boot, mark = "-", "-"
	}
	f, err := os.OpenFile(filepath.Join(r.opt.Dir, serversFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, privateFileMode)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%d %d %s %s\n", pid, st, boot, mark)
	f.Close()
}

// stopLeftovers kills the process groups of servers a previous invocation
// started that are still there, and forgets them all.
func (r *runner) stopLeftovers() {
	path := filepath.Join(r.opt.Dir, serversFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == containerLine {
			if r.leftoverContainerAllowed(f[1], f[2]) {
				r.removeLeftoverContainer(f[1], f[2])
			} else {
				r.event(journal.LevelWarning, "", "%s names container %s of runtime %q, which no stack of this comparison file starts: not removed", serversFile, f[2], f[1])
			}
			continue
		}
		if len(f) != 4 {
			continue
		}
		// A pid of another boot (or of a line that does not say which)
		// names some other process now: never signalled.
		if boot := proc.BootID(); f[2] != boot || boot == "" {
			r.event(journal.LevelWarning, "", "server process group %s was recorded in another boot of this machine: not signalled", f[0])
			continue
		}
		if n := proc.KillMarked(f[3]); n > 0 {
			r.event(journal.LevelWarning, "", "stopped %d processes carrying the mark of server %s, left running by the stopped run", n, f[0])
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
			r.event(journal.LevelWarning, "", "stopped server process group %d, left running by the stopped run", pid)
		}
	}
	os.Remove(path)
}
