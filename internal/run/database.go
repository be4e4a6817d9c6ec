package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/proc"
)

// runDatabase is the database every stack of the run uses: a fresh copy of
// the seeded template, so a run never measures a database a user has been
// writing to.
const runDatabase = "stackbench_run"

// setupDatabase brings up the embedded cluster (in the results directory, so
// a resumed run finds it again) or connects to the user's server, makes the
// seeded template and a fresh copy of it for the run.
func (r *runner) setupDatabase(ctx context.Context) error {
	if !r.opt.Plan.NeedsDatabase {
		return nil
	}
	adminURL := r.opt.Plan.Database
	if databaseKind(adminURL) == "embedded" {
		dir := filepath.Join(r.opt.Dir, "db")
		// A run stopped by kill -9 leaves its cluster running: use it.
		c, err := pgfix.Attach(dir)
		if err != nil {
			r.progress.logf("database: starting an embedded PostgreSQL cluster")
			if c, err = pgfix.Start(ctx, pgfix.Options{Dir: dir}); err != nil {
				return fmt.Errorf("embedded database: %w", err)
			}
		} else {
			r.progress.logf("database: using the embedded cluster the stopped run left running")
		}
		r.cluster = c
		adminURL = c.AdminURL()
	}
	t0 := time.Now()
	rep, err := pgfix.EnsureTemplate(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("seed the template database: %w", err)
	}
	_ = rep
	url, err := pgfix.FreshDatabase(ctx, adminURL, runDatabase)
	if err != nil {
		return fmt.Errorf("copy the seeded database: %w", err)
	}
	r.dbURL = url
	r.db, err = pgfix.Open(ctx, url)
	if err != nil {
		return fmt.Errorf("open the run's database: %w", err)
	}
	r.progress.logf("database: seeded and copied in %.1fs", time.Since(t0).Seconds())
	return nil
}

// dbStats snapshots the database state around a window.
func (r *runner) dbStats(ctx context.Context) *journal.DBStats {
	if r.db == nil {
		return nil
	}
	s, err := r.db.Stats(ctx)
	if err != nil {
		r.event("warning", "", "database statistics: %v", err)
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
// the postmaster tree of the embedded cluster, or the processes a server on
// this host reports; ok is false when the server is elsewhere.
func (r *runner) databaseGroup(ctx context.Context) (proc.Group, bool) {
	if r.cluster != nil {
		return proc.TreeGroup("database", r.cluster.PostmasterPID()), true
	}
	if r.db == nil {
		return proc.Group{}, false
	}
	pids, err := r.db.ServerPIDs(ctx)
	if err != nil || len(pids) == 0 {
		return proc.Group{}, false
	}
	return proc.Group{Name: "database", PIDs: func() []int { return pids }}, true
}

// teardownDatabase stops the embedded cluster; its directory is removed when
// the run completed (a stopped run keeps it for the resume).
func (r *runner) teardownDatabase(completed bool) {
	if r.db != nil {
		r.db.Close()
	}
	if r.cluster == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.cluster.Stop(ctx); err != nil {
		r.progress.logf("warning: stopping the embedded database: %v", err)
		return
	}
	if completed {
		if err := os.RemoveAll(r.cluster.Dir()); err != nil {
			r.progress.logf("warning: removing the embedded database: %v", err)
		}
	}
}
