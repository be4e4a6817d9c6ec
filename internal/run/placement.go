package run

import (
	"fmt"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// The parties are placed where they are spawned: the servers through
// stack.Harness.CPUs (the run's harness), the generator by startLoad, the
// embedded database by stack.OpenDatabaseOn. This file records what they
// got.

// placement records the harness's affinity mask and warns about
// what the placement cannot do (lanes that share CPUs, a database that
// stackbench did not start).
func (ph *environmentPhase) placement(env *journal.Environment) {
	r := ph.r
	if mask, err := cpuset.Affinity(); err == nil {
		env.AffinityCPUs = mask.String()
	}
	env.Warnings = append(env.Warnings, r.opt.Plan.Protocol.Placement.Notes(r.opt.Plan.ExternalDatabase())...)
}

// readPlacement reads back, under placement: lanes, the CPUs the server's
// tree, the generator's and the embedded database's may run on (nil with
// shared), and warns once about each party found outside its lane. It runs
// while the generator warms up, outside the measured window.
func (l *localSite) readPlacement(cur *server, lr *loadRun) *journal.CPUs {
	r := l.p
	pl := r.opt.Plan.Protocol.Placement
	if !pl.IsLanes() {
		return nil
	}
	lanes := pl.Lanes()
	got := &journal.CPUs{
		Server:    l.checkLane("server", cur.stack.Name, lanes.Server, proc.TreePIDs(cur.tree.PID())),
		Generator: l.checkLane("generator", "", lanes.Generator, proc.TreePIDs(lr.cmd.Process.Pid)),
	}
	if r.database != nil && r.database.Cluster != nil {
		got.Database = l.checkLane("database", "", lanes.Database, proc.TreePIDs(r.database.Cluster.PostmasterPID()))
	}
	return got
}

// checkLane reads back the CPUs of a party's processes and journals a
// warning, once per party and CPU list, when they are not its lane.
func (l *localSite) checkLane(party, stackName string, lane cpuset.Set, pids []int) string {
	r := l.p
	got := cpuset.AllowedAll(pids)
	if len(got) > 0 && !got.Equal(lane) {
		key := party + "/" + stackName + "/" + got.String()
		if !l.laneWarned[key] {
			if l.laneWarned == nil {
				l.laneWarned = map[string]bool{}
			}
			l.laneWarned[key] = true
			r.event(journal.LevelWarning, stackName, "placement lanes: the %s's processes may run on %s, not only on its lane, %s (did a process change its own affinity?)", party, got.Describe(), lane.Describe())
		}
	}
	return got.String()
}

// placementChanged says how the placement resolved now differs from the
// journaled one, or "": a resume on another host (or with another CPU
// mask) may resolve placement: auto, or a default split, otherwise.
func placementChanged(now, then plan.Placement) string {
	if now == then {
		return ""
	}
	return fmt.Sprintf("; the placement resolves to %s here but the run was started with %s: resume it on a host with the same CPUs, or start a new run", now, then)
}
