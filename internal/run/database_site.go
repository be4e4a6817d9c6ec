package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/proc"
)

// databaseSite is where the run's database server runs: on this machine
// (hereDatabase: the embedded cluster, or the user's server given by URL,
// sampled here when it runs here), or on the database host of roles:
// (remoteDatabase, sampled there by its agent). The resets, checkpoints
// and statistics between windows go over the run's connection wherever
// it runs; what differs is how it is measured and stopped.
type databaseSite interface {
	// host is the host of roles: it runs on; "" for this machine.
	host() string
	// group is the sampler group of its processes here; ok is false
	// when it is not here.
	group(ctx context.Context) (proc.Group, bool)
	// sample measures its processes on its host between from and to,
	// two instants of that host's clock (this machine's instant plus
	// the host's clock offset), and returns after to: CPU seconds,
	// cores, mean and peak resident memory, as a local window's
	// database group. ok is false when it is sampled here (group).
	sample(ctx context.Context, from, to time.Time) (smp agent.Sample, ok bool, err error)
	// teardown stops what the run started; the embedded cluster's
	// directory is removed when the run completed (a stopped run keeps
	// it for the resume).
	teardown(completed bool)
}

// hereDatabase is the database on this machine: the embedded cluster or
// a server of the user's (database: {url: …}).
type hereDatabase struct{ p siteParts }

func (hereDatabase) host() string { return "" }

// group is the postmaster tree of the embedded cluster or of a server on
// this host given by URL.
func (d hereDatabase) group(ctx context.Context) (proc.Group, bool) {
	r := d.p
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

func (hereDatabase) sample(context.Context, time.Time, time.Time) (agent.Sample, bool, error) {
	return agent.Sample{}, false, nil
}

func (d hereDatabase) teardown(completed bool) {
	r := d.p
	if err := r.database.Close(completed); err != nil {
		r.progress.logf("warning: closing the database: %v", err)
	}
	if completed {
		os.Remove(filepath.Join(r.opt.Dir, DBPathFile))
	}
}

func (d *remoteDatabase) host() string { return d.name }

// group is none: on its own host the agent measures it (sample), even
// when that host shares this one's process table (the tests' network
// namespaces).
func (d *remoteDatabase) group(context.Context) (proc.Group, bool) { return proc.Group{}, false }

// sample measures the postmaster's tree on the database host, found again
// at every sample.
func (d *remoteDatabase) sample(ctx context.Context, from, to time.Time) (agent.Sample, bool, error) {
	smp, err := d.agent.Sample(ctx, agent.DatabaseProcess, from, to)
	if err != nil {
		return smp, true, fmt.Errorf("sample the database on host %s: %w", d.name, err)
	}
	return smp, true, nil
}

// teardown stops the cluster: its databases go with it. A session that
// dropped (or was closed first) has taken them already.
func (d *remoteDatabase) teardown(bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.agent.StopDatabase(ctx); err != nil && !errors.Is(err, agent.ErrSessionLost) {
		d.logf("warning: stopping the database on host %s: %v", d.name, err)
	}
}
