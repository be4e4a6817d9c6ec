package run

import (
	"context"
	"strconv"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/proc"
)

// serviceGroupPrefix names the sampler groups of a stack's services.
const serviceGroupPrefix = "service:"

// serviceGroups are the process trees listening on the serving stack's
// services: ports (looked up now; a port nobody holds is left out). A
// PostgreSQL server's listener is its postmaster, so its backends are in
// the tree. A listener that another group already measures (in the
// server's own tree, or the run's database) is left out: groups must not
// overlap.
func (l *localSite) serviceGroups(ctx context.Context, cur *server) []proc.Group {
	r := l.p
	if cur == nil || len(cur.stack.Services) == 0 {
		return nil
	}
	seen := map[int]bool{}
	for _, pid := range proc.TreePIDs(cur.tree.PID()) {
		seen[pid] = true
	}
	if g, ok := r.dbs.group(ctx); ok {
		for _, pid := range proc.TreePIDs(g.Root()) {
			seen[pid] = true
		}
	}
	var gs []proc.Group
	for _, port := range cur.stack.Services {
		pid, _, ok := proc.PortHolder(port)
		if !ok || seen[pid] {
			continue
		}
		seen[pid] = true
		gs = append(gs, proc.TreeGroup(serviceGroupPrefix+strconv.Itoa(port), pid))
	}
	return gs
}

// addUsage adds a group's figures to a sum.
func addUsage(u *journal.Usage, g proc.GroupStats) {
	u.CPUSeconds += g.CPUSeconds
	u.Cores += g.Cores
	u.RSSMeanBytes += g.RSSMeanBytes
	u.RSSPeakBytes += g.RSSPeakBytes
	u.Processes += g.Processes
}
