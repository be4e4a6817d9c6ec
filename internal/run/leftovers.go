package run

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// serversFile lists, in the results directory, the process groups of the
// servers the run started, each with its leader's start time, so that a
// resume can stop what a harness killed with SIGKILL left running: the
// children of a start command with shell syntax do not die with the harness.
const serversFile = "servers.pids"

// startTime is field 22 of /proc/<pid>/stat: the process's start time in
// clock ticks since boot. With the pid it identifies a process across pid
// reuse.
func startTime(pid int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command come state (field 3) … starttime (field 22).
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}

// rememberServer records a started server's process group.
func (r *runner) rememberServer(pid int) {
	st, ok := startTime(pid)
	if !ok {
		return
	}
	f, err := os.OpenFile(filepath.Join(r.opt.Dir, serversFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%d %s\n", pid, st)
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
		if len(f) != 2 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 1 {
			continue
		}
		// A live leader with another start time is a new process that
		// reused the pid: leave it. A dead leader whose group still has
		// members is ours: a group id cannot be taken by anyone but the
		// process of that pid, so the group is the one the run made.
		if st, ok := startTime(pid); ok && st != f[1] {
			continue
		}
		if syscall.Kill(-pid, syscall.SIGKILL) == nil {
			r.event("warning", "", "stopped server process group %d, left running by the stopped run", pid)
		}
	}
	os.Remove(path)
}
