package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// runDatabase is the database every stack of the run uses: a fresh copy of
// the seeded template, so a run never measures a database a user has been
// writing to.
const runDatabase = "stackbench_run"

// DBPathFile names, in the results directory, the file that holds the
// embedded cluster's directory, so that a resumed run finds the cluster
// again (still running after kill -9, or stopped after Ctrl-C).
const DBPathFile = "embedded-db.path"

// setupDatabase brings up the embedded cluster or connects to the user's
// server, and makes the run's copy of the seed. The embedded cluster lives
// in a temporary directory the database's account can reach (a results
// directory under /root would not be, when stackbench runs as root).
func (r *runner) setupDatabase(ctx context.Context) error {
	if !r.opt.Plan.NeedsDatabase {
		return nil
	}
	t0 := time.Now()
	pathFile := filepath.Join(r.opt.Dir, DBPathFile)
	dir := ""
	if b, err := os.ReadFile(pathFile); err == nil {
		if prev := strings.TrimSpace(string(b)); prev != "" {
			if _, err := os.Stat(prev); err == nil {
				dir = prev
			}
		}
	}
	r.fixture = stack.Fixture(r.opt.File.Workload.Name, r.opt.File.Fixture, r.logsDir())
	d, err := stack.OpenFixtureDatabase(ctx, r.opt.Plan.Database, dir, r.opt.Plan.Protocol.Placement.Lanes().Database, r.fixture, func(s string) { r.progress.logf("%s", s) })
	if err != nil {
		return err
	}
	r.database = d
	if d.Cluster != nil {
		if err := os.WriteFile(pathFile, []byte(d.Cluster.Dir()+"\n"), 0o644); err != nil {
			return err
		}
	}
	if r.dbURL, err = d.Fresh(ctx, runDatabase); err != nil {
		return err
	}
	if r.db, err = pgfix.Open(ctx, r.dbURL); err != nil {
		return err
	}
	r.progress.logf("database: ready in %.1fs", time.Since(t0).Seconds())
	return nil
}

// dbStats snapshots the database state around a window.
func (r *runner) dbStats(ctx context.Context) *journal.DBStats {
	if r.db == nil {
		return nil
	}
	s, err := r.db.Stats(ctx)
	if err != nil {
		r.event(journal.LevelWarning, "", "database statistics: %v", err)
		return nil
	}
	return &journal.DBStats{
		Checkpoints:           s.Checkpoints,
		OrdersRows:            s.OrdersRows,
		OrdersLiveTuples:      s.OrdersLiveTuples,
		OrdersDeadTuples:      s.OrdersDeadTuples,
		OrdersSizeBytes:       s.OrdersSizeBytes,
		OrdersAutovacuumCount: s.OrdersAutovacuumCount,
	}
}

// databaseGroup is the sampler group of the database server's processes:
// the postmaster tree of the embedded cluster or of a server on this host
// given by URL; ok is false when the server is elsewhere.
func (r *runner) databaseGroup(ctx context.Context) (proc.Group, bool) {
	if r.database != nil && r.database.Cluster != nil {
		return proc.TreeGroup("database", r.database.Cluster.PostmasterPID()), true
	}
	if r.db == nil {
		return proc.Group{}, false
	}
	// The postmaster's tree, re-resolved at every sample: a snapshot of
	// its processes would miss the backends a fresh stack's pool forks
	// during the warm-up, and with them most of the database's CPU.
	pids, err := r.db.ServerPIDs(ctx)
	if err != nil || len(pids) == 0 {
		return proc.Group{}, false
	}
	return proc.TreeGroup("database", pids[0]), true
}

// teardownDatabase stops the embedded cluster; its directory is removed when
// the run completed (a stopped run keeps it for the resume).
func (r *runner) teardownDatabase(completed bool) {
	if r.db != nil {
		r.db.Close()
	}
	if err := r.database.Close(completed); err != nil {
		r.progress.logf("warning: closing the database: %v", err)
	}
	if completed {
		os.Remove(filepath.Join(r.opt.Dir, DBPathFile))
	}
}
