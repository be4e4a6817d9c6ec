package proc

import (
	"fmt"
	"slices"
	"time"

	"github.com/stackbench/stackbench/internal/platform"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// stopPollInterval is how often Stop looks for survivors.
const stopPollInterval = 10 * time.Millisecond

// killWait bounds the wait for processes to vanish after SIGKILL.
const killWait = 5 * time.Second

// Stop ends the stack: SIGTERM to its process group, to every descendant
// seen (including those that left the group with setsid) and to every
// process carrying its mark (MarkEnv: those it daemonized, whose parent
// is gone), then,
// after grace, SIGKILL to whatever still runs. It returns once the root
// was reaped and no process it ever saw in the tree or group still runs;
// an error names the survivors. Calling Stop again returns the first result.
func (p *Process) Stop(grace time.Duration) error {
	p.stopOnce.Do(func() { p.stopErr = p.stop(grace) })
	return p.stopErr
}

func (p *Process) stop(grace time.Duration) error {
	var containerErr error
	if p.spec.Container != nil {
		containerErr = p.stopContainer(grace)
	}
	if err := p.stopTree(grace); err != nil {
		return err
	}
	return containerErr
}

func (p *Process) stopTree(grace time.Duration) error {
	pgid := p.PID()
	var r statReader
	seen := map[int]bool{}
	// refresh adds to seen every process of the group and every descendant
	// of a process already seen, and returns the ones still running.
	refresh := func() []int {
		all, _ := scanAll(&r, nil, nil)
		for _, pid := range groupPIDs(all, pgid) {
			seen[pid] = true
		}
		for _, pid := range MarkedPIDs(p.mark) {
			seen[pid] = true
		}
		for changed := true; changed; {
			changed = false
			for _, st := range all {
				if seen[st.PPID] && !seen[st.PID] {
					seen[st.PID] = true
					changed = true
				}
			}
		}
		var running []int
		for _, st := range all {
			if seen[st.PID] && st.Alive {
				running = append(running, st.PID)
			}
		}
		return running
	}
	seen[pgid] = true
	running := refresh()
	signalAll(pgid, running, platform.Terminate)
	deadline := time.Now().Add(grace)
	for len(running) > 0 && time.Now().Before(deadline) {
		time.Sleep(stopPollInterval)
		running = refresh()
	}
	for deadline = time.Now().Add(killWait); len(running) > 0 && time.Now().Before(deadline); {
		signalAll(pgid, running, platform.Kill)
		time.Sleep(stopPollInterval)
		running = refresh()
	}
	select {
	case <-p.done:
	case <-time.After(killWait):
		return fmt.Errorf("stop stack %q: pid %d was killed but not reaped", p.spec.Name, pgid)
	}
	local.Ended(pgid)
	if len(running) > 0 {
		slices.Sort(running)
		return fmt.Errorf("stop stack %q: pids %v survived SIGKILL; kill them by hand", p.spec.Name, running)
	}
	return nil
}

// signalAll signals the process group and each listed process (some may
// have left the group). Errors are ignored: a process may exit meanwhile.
func signalAll(pgid int, pids []int, sig platform.Signal) {
	local.OS.SignalGroup(pgid, sig)
	for _, pid := range pids {
		local.OS.Signal(pid, sig)
	}
}
