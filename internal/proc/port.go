package proc

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/osutil"
)

// PortHolder names the process that listens on TCP port (any address,
// IPv4 or IPv6), from /proc/net/tcp{,6} and a scan of the sockets in
// /proc/*/fd. ok is false when nobody listens or the holder is not
// visible to us (another user's process when we are not root).
func PortHolder(port int) (pid int, cmdline string, ok bool) {
	inodes := listeningInodes(port)
	if len(inodes) == 0 {
		return 0, "", false
	}
	pids, _ := listPIDs(nil)
	for _, p := range pids {
		if ownsAnyInode(p, inodes) {
			return p, readCmdline(p), true
		}
	}
	return 0, "", false
}

// tcpListen is the state code of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// listeningInodes returns the inodes of the sockets listening on port.
func listeningInodes(port int) map[string]bool {
	inodes := map[string]bool{}
	for _, path := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != tcpListen {
				continue
			}
			colon := strings.LastIndexByte(fields[1], ':')
			if colon < 0 {
				continue
			}
			p, err := strconv.ParseUint(fields[1][colon+1:], 16, 16)
			if err != nil || int(p) != port || fields[9] == "0" {
				continue
			}
			inodes[fields[9]] = true
		}
		f.Close()
	}
	return inodes
}

// ownsAnyInode reports whether one of pid's file descriptors is a socket
// with one of the given inodes.
func ownsAnyInode(pid int, inodes map[string]bool) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		link, err := os.Readlink(dir + "/" + n)
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
			return true
		}
	}
	return false
}

// readCmdline returns the command line of pid with spaces between the
// arguments, or "" when it cannot be read.
func readCmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// portInUse reports whether something accepts or binds the port even when
// PortHolder cannot see who: a listener of another user, or another network
// namespace sharing the loopback.
func portInUse(port int) bool { return !osutil.PortFree(port) }
