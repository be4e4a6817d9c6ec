//go:build darwin

package darwin

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// Group makes cmd the leader of a process group of its own. macOS has no parent-death
// signal: Started hands the group to the watchdog, which kills it if the
// harness dies first.
func Group(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// CancelGroup makes cancelling the context of cmd (made with
// exec.CommandContext) kill cmd's whole process group, not just its leader.
func CancelGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

var watchdog struct {
	sync.Mutex
	w   io.WriteCloser
	err error
}

// startWatchdog starts the watchdog once, in a group of its own.
func startWatchdog() (io.Writer, error) {
	watchdog.Lock()
	defer watchdog.Unlock()
	if watchdog.w != nil || watchdog.err != nil {
		return watchdog.w, watchdog.err
	}
	r, w, err := os.Pipe()
	if err != nil {
		watchdog.err = fmt.Errorf("start the process watchdog: %w", err)
		return nil, watchdog.err
	}
	cmd := exec.Command("/bin/sh", "-c", watchdogScript)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		watchdog.err = fmt.Errorf("start the process watchdog /bin/sh: %w", err)
		return nil, watchdog.err
	}
	r.Close()
	go cmd.Wait()
	watchdog.w = w
	return w, nil
}

// Started hands the group of a started command to the watchdog.
func Started(pgid int) {
	w, err := startWatchdog()
	if err != nil {
		fmt.Fprintln(os.Stderr, "stackbench:", err, "— processes it starts may outlive it if it is killed")
		return
	}
	watchdog.Lock()
	defer watchdog.Unlock()
	io.WriteString(w, "+"+strconv.Itoa(pgid)+"\n")
}

// Ended tells the watchdog that the harness has stopped a group.
func Ended(pgid int) {
	watchdog.Lock()
	defer watchdog.Unlock()
	if watchdog.w != nil {
		io.WriteString(watchdog.w, "-"+strconv.Itoa(pgid)+"\n")
	}
}

// StartPinned starts cmd; macOS has no affinity, so cpus must be empty.
func StartPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) > 0 {
		return errors.New("CPU lanes need CPU affinity, which macOS does not have; use placement: shared")
	}
	return cmd.Start()
}
