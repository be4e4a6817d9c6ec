package pgfix

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ServerPIDs returns the postmaster's pid followed by all its descendants
// (backends, checkpointer, walwriter...) when the server runs on this host,
// so their CPU time can be read from /proc; otherwise (another host, a
// container, no /proc) it returns nothing and no error.
//
// The server is recognised by its process title: the backend serving this
// connection names the client's address and port, e.g.
// "postgres: stackbench db 127.0.0.1(51234) idle", and that port is this
// connection's own local port, so a pid that happens to exist locally on
// another machine's behalf is never taken for it.
//
// The list is a snapshot: backends of connections opened later are not in
// it, so call it again when the server's connections change.
func (db *DB) ServerPIDs(ctx context.Context) ([]int, error) {
	var backend int
	if err := db.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return nil, fmt.Errorf("server pids: %w", err)
	}
	local, ok := db.conn.PgConn().Conn().LocalAddr().(*net.TCPAddr)
	if !ok {
		return nil, nil
	}
	title, err := os.ReadFile("/proc/" + strconv.Itoa(backend) + "/cmdline")
	if err != nil || !strings.Contains(string(title), "("+strconv.Itoa(local.Port)+")") {
		return nil, nil
	}
	parents, err := parentMap()
	if err != nil {
		return nil, nil
	}
	postmaster := parents[backend]
	return append([]int{postmaster}, descendants(parents, postmaster)...), nil
}

// parentMap reads every process's parent pid from /proc.
func parentMap() (map[int]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	parents := make(map[int]int, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := readPPID(pid); ok {
			parents[pid] = ppid
		}
	}
	return parents, nil
}

// readPPID parses field 4 of /proc/PID/stat, after the parenthesised
// command name (which may itself hold spaces and parentheses).
func readPPID(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// descendants returns the pids below root in the process tree, sorted.
func descendants(parents map[int]int, root int) []int {
	children := map[int][]int{}
	for pid, ppid := range parents {
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	slices.Sort(out)
	return out
}
