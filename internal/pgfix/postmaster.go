package pgfix

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// postmaster.pid lines (PostgreSQL's LOCK_FILE_LINE_* constants, 1-based).
const (
	pidLinePID  = 1
	pidLinePort = 4
)

func (c *Cluster) pidFileLine(n int) string {
	b, err := os.ReadFile(filepath.Join(c.dataDir(), "postmaster.pid"))
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < n {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

func (c *Cluster) pidFilePort() int {
	port, _ := strconv.Atoi(c.pidFileLine(pidLinePort))
	return port
}

// livePostmaster returns the pid in postmaster.pid when that process is
// alive and, where /proc exists, is a postgres process (not a reused pid).
func (c *Cluster) livePostmaster() (int, bool) {
	pid, err := strconv.Atoi(c.pidFileLine(pidLinePID))
	if err != nil || pid <= 0 {
		return 0, false
	}
	if !processRunning(pid) {
		return 0, false
	}
	if args := strings.Fields(local.OS.Cmdline(pid)); len(args) > 0 {
		name := filepath.Base(args[0])
		if name != "postgres" && name != "postmaster" {
			return 0, false
		}
	}
	return pid, true
}

// processRunning reports whether pid is a process that has not exited. A
// zombie (exited, not yet reaped by its parent, which for a postmaster
// started by pg_ctl is init) counts as exited.
func processRunning(pid int) bool { return local.Alive(pid) }

// waitExited waits until pid has exited, or the timeout passes.
func waitExited(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for processRunning(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
