package proc

import (
	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// PortHolder names the process that listens on TCP port (any address,
// IPv4 or IPv6), as the platform sees it. ok is false when nobody listens
// or the holder is not visible to us (another user's process when we are
// not root).
func PortHolder(port int) (pid int, cmdline string, ok bool) {
	pids, _ := local.OS.Listeners(port)
	if len(pids) == 0 {
		return 0, "", false
	}
	return pids[0], local.OS.Cmdline(pids[0]), true
}

// portInUse reports whether something accepts or binds the port even when
// PortHolder cannot see who: a listener of another user, or another network
// namespace sharing the loopback.
func portInUse(port int) bool { return !netutil.PortFree(port) }
