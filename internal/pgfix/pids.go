package pgfix

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/platform/local"
	platformlocal "github.com/stackbench/stackbench/internal/platform/local"
)

// ServerPIDs returns the postmaster's pid followed by all its descendants
// (backends, checkpointer, walwriter...) when the server runs on this host,
// so their CPU time can be read; otherwise (another host, a container) it returns nothing and no error.
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
	title := platformlocal.OS.Cmdline(backend)
	if !strings.Contains(title, "("+strconv.Itoa(local.Port)+")") {
		return nil, nil
	}
	parents, err := parentMap()
	if err != nil {
		return nil, nil
	}
	postmaster := parents[backend]
	return append([]int{postmaster}, descendants(parents, postmaster)...), nil
}

// parentMap reads every process's parent pid.
func parentMap() (map[int]int, error) {
	r := local.OS.NewProcReader()
	pids, err := r.List(nil)
	if err != nil {
		return nil, err
	}
	parents := make(map[int]int, len(pids))
	for _, pid := range pids {
		if p, ok := r.Read(pid); ok {
			parents[pid] = p.PPID
		}
	}
	return parents, nil
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
