// Package local is the platform of the machine the harness runs on: OS is
// platform/linux's or platform/darwin's implementation, chosen when
// stackbench is built. It adds what only makes sense on this machine and
// so stays outside platform.OS: starting an *exec.Cmd in a process group of
// its own that dies with the harness, and lanes of CPUs set at spawn.
package local

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/stackbench/stackbench/internal/platform"
)

// Group makes cmd, once started, the leader of a process group of its own
// that dies with the harness (Linux: a parent-death signal; macOS: a
// watchdog process that Start registers the group with). A command made
// with exec.CommandContext should also get CancelGroup.
func Group(cmd *exec.Cmd) { group(cmd) }

// CancelGroup makes cancelling the context of cmd (made with
// exec.CommandContext) kill its whole process group.
func CancelGroup(cmd *exec.Cmd) { cancelGroup(cmd) }

// KillGroup sends SIGKILL to the process group pgid; errors (the group is
// already gone) are returned for callers that report them.
func KillGroup(pgid int) error { return OS.SignalGroup(pgid, platform.Kill) }

// Start starts cmd, with its CPU affinity set to cpus when cpus is not
// empty (every thread and child it makes inherits the lane; an error on a
// platform without affinity), and registers its group with the watchdog
// when Group was applied and the platform needs one.
func Start(cmd *exec.Cmd, cpus []int) error {
	if err := startPinned(cmd, cpus); err != nil {
		return err
	}
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid {
		started(cmd.Process.Pid)
	}
	return nil
}

// Run is Start followed by cmd.Wait, for commands Group applies to.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd, nil); err != nil {
		return err
	}
	err := cmd.Wait()
	Ended(cmd.Process.Pid)
	return err
}

// Ended tells the platform that the harness has stopped the group pgid
// (the watchdog forgets it).
func Ended(pgid int) { ended(pgid) }

// ExitSignal names the signal that ended a process, or "" when it exited
// by itself.
func ExitSignal(ps *os.ProcessState) string {
	if ps == nil {
		return ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
