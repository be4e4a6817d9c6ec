//go:build linux

package linux

import (
	"os/exec"
	"syscall"
)

// Group makes cmd the leader of a process group of its own that the
// kernel kills when the harness dies (Pdeathsig reaches the leader; the
// harness's Stop reaches the rest of the tree in normal operation).
func Group(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// CancelGroup makes cancelling the context of cmd (made with
// exec.CommandContext) kill cmd's whole process group, not just its leader.
func CancelGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// Started is called after a grouped command started; Linux needs nothing
// more (the kernel's parent-death signal does the watchdog's work).
func Started(pid int) {}

// Ended is called when the harness has stopped a group; nothing to do.
func Ended(pgid int) {}
