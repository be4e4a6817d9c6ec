//go:build linux

package linux

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
)

// tcpListen is the state code of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// Listeners returns the processes holding a socket that listens on port,
// from /proc/net/tcp{,6} and a scan of the sockets in /proc/*/fd.
func (OS) Listeners(port int) (pids []int, listening bool) {
	inodes := listeningInodes(port)
	if len(inodes) == 0 {
		return nil, false
	}
	all, _ := (&Reader{}).List(nil)
	for _, p := range all {
		if ownsAnyInode(p, inodes) {
			pids = append(pids, p)
		}
	}
	return pids, true
}

// listeningInodes returns the inodes of the sockets listening on port.
func listeningInodes(port int) map[string]bool {
	inodes := map[string]bool{}
	for inode, p := range listeningSockets() {
		if p == port {
			inodes[inode] = true
		}
	}
	return inodes
}

// listeningSockets maps the inode of every listening TCP socket in
// /proc/net/tcp{,6} to its port.
func listeningSockets() map[string]int {
	ports := map[string]int{}
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
			if len(fields) < 10 || fields[3] != tcpListen || fields[9] == "0" {
				continue
			}
			colon := strings.LastIndexByte(fields[1], ':')
			if colon < 0 {
				continue
			}
			if p, err := strconv.ParseUint(fields[1][colon+1:], 16, 16); err == nil {
				ports[fields[9]] = int(p)
			}
		}
		f.Close()
	}
	return ports
}

// socketInodes returns the inodes of the sockets among pid's file
// descriptors.
func socketInodes(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	var out []string
	for _, n := range names {
		link, err := os.Readlink(dir + "/" + n)
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"))
	}
	return out
}

// ownsAnyInode reports whether one of pid's file descriptors is a socket
// with one of the given inodes.
func ownsAnyInode(pid int, inodes map[string]bool) bool {
	return slices.ContainsFunc(socketInodes(pid), func(i string) bool { return inodes[i] })
}

// ListenPorts returns the TCP ports any of pids listens on, sorted: the
// listening sockets of /proc/net/tcp{,6} whose inodes the processes hold.
func (OS) ListenPorts(pids []int) []int {
	ports := listeningSockets()
	seen := map[int]bool{}
	var out []int
	for _, pid := range pids {
		for _, inode := range socketInodes(pid) {
			if p, ok := ports[inode]; ok && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}
