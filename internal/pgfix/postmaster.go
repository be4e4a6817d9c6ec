package pgfix

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return 0, false
	}
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil {
		name := strings.TrimSpace(string(comm))
		if name != "postgres" && name != "postmaster" {
			return 0, false
		}
	}
	return pid, true
}
