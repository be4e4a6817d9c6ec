package run

import (
	"strings"

	"github.com/stackbench/stackbench/internal/proc"
)

// databaseOwnGroup is the sampler group of the serving stack's own
// database backends (journal.Window.DatabaseOwn; trap T27).
const databaseOwnGroup = "database_own"

// databaseOwnGroup is the part of the database's tree db (its sampler
// group here) that serves stack: the backends whose process title names
// the stack's database. Each stack has its own copy of the template in a
// run, so its backends are its alone; other stacks' backends (a pool
// closing after its window), autovacuum and the checkpointer stay in the
// database's whole figure. ok is false when the tree's root is not known
// here or the stack's database has no name.
func (r *databaseState) databaseOwnGroup(db proc.Group, stack string) (proc.Group, bool) {
	root := db.Root()
	if root == 0 {
		return proc.Group{}, false
	}
	u, _ := r.dbOf(stack)
	name := databaseName(u)
	if name == "" {
		return proc.Group{}, false
	}
	return proc.PartOfTree(databaseOwnGroup, root, func(title string) bool { return backendOf(title, name) }), true
}

// backendOf reports whether a process title is a PostgreSQL backend of
// database name: "postgres: USER DATABASE HOST(PORT) STATE" (a cluster
// with cluster_name set puts "NAME: " after "postgres:").
func backendOf(title, name string) bool {
	f := strings.Fields(title)
	if len(f) < 3 || f[0] != "postgres:" {
		return false
	}
	if strings.HasSuffix(f[1], ":") { // cluster_name
		f = f[1:]
	}
	return len(f) >= 3 && f[2] == name
}
