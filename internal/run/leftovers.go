package run

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/platform"
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
func leftoversOf(r *runner) leftovers { return r.siteParts().leftovers() }

// leftovers is the servers file of the run's results directory, as a
// site records its servers in it.
func (p siteParts) leftovers() leftovers {
	l := leftovers{dir: p.opt.Dir, event: p.event}
	if p.opt.Plan != nil {
		l.stacks = p.opt.Plan.Stacks
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
// started that are still there, and forgets them all. servers.pids is
// data: it is acted on only when it is this user's own file, writable by
// no one else, and a process group only when one of its members is a
// process of this user carrying, exactly, the mark recorded with it
// (stopServer).
func (l leftovers) stop() {
	path := filepath.Join(l.dir, serversFile)
	b, err := l.readOwn()
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.event(journal.LevelWarning, "", "%v: nothing it names is stopped", err)
			os.Remove(path) // the entry itself, never what a link names
		}
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
		l.stopServer(f[0], f[2], f[3])
	}
	if len(onHosts) > 0 {
		fileutil.WriteIn(l.dir, serversFile, []byte(strings.Join(onHosts, "\n")+"\n"), privateFileMode)
		return
	}
	os.Remove(path)
}

// readOwn reads servers.pids, opened without following a link, when it is
// this user's own and writable by no one else.
func (l leftovers) readOwn() ([]byte, error) {
	f, err := fileutil.OpenIn(l.dir, serversFile, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := fileutil.OwnPrivate(f.Name(), fi); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(f, maxServersFileBytes))
}

// maxServersFileBytes bounds what is read of servers.pids: a line per
// server started, a few thousand in the longest run.
const maxServersFileBytes = 4 << 20

// stopServer stops what is left of one recorded server (a line "PID
// START BOOT MARK"; START, the leader's start time, is no longer needed): the processes of this user that carry MARK, exactly
// and in the form a run gives it, and the process group PID when one of
// them is in it. A group is the run's only so: a pid, a start time and a
// boot ID can be copied from ps into the file; a random mark in a
// process's environment cannot be put there by anyone but the run (or
// the process itself). A pid of another boot (or of a line that does
// not say which) names some other process now: never signalled.
func (l leftovers) stopServer(pidField, bootField, mark string) {
	if boot := proc.BootID(); bootField != boot || boot == "" {
		l.event(journal.LevelWarning, "", "server process group %s was recorded in another boot of this machine: not signalled", pidField)
		return
	}
	name, ok := proc.ParseMark(mark)
	if ok && l.stacks != nil {
		ok = slices.ContainsFunc(l.stacks, func(s plan.Stack) bool { return proc.MarkName(s.Name) == name })
	}
	pid, err := strconv.Atoi(pidField)
	if !ok || err != nil || pid <= 1 {
		l.event(journal.LevelWarning, "", "%s names server process group %s with mark %q, not a mark of a stack of this comparison file: not signalled", serversFile, pidField, mark)
		return
	}
	marked := proc.OwnMarked(mark)
	inGroup := false
	for p, pgid := range marked {
		inGroup = inGroup || pgid == pid
		local.OS.Signal(p, platform.Kill)
	}
	if len(marked) > 0 {
		l.event(journal.LevelWarning, "", "stopped %d processes carrying the mark of server %d, left running by the stopped run", len(marked), pid)
	}
	// The group's members carry the mark the run gave the shell that
	// leads it; one of them in the group makes it the run's.
	if inGroup && local.KillGroup(pid) == nil {
		l.event(journal.LevelWarning, "", "stopped server process group %d, left running by the stopped run", pid)
	}
}
