package run

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
)

// farSamples are what a window whose generator runs here samples on other
// hosts: the database on its own host (roles: database: with the server
// here). Each host's agent is asked when the generator says when its
// measured window starts (windowSampler.onStart: measure_at, ahead of the
// boundary), over that window converted to the host's clock (this
// machine's instant plus the host's clock offset, as a window across
// hosts converts its instants), and the samples are awaited after the
// load. So the database's CPU covers the window the server's, sampled
// here, covers, to within the offset's bound.
type farSamples struct {
	r    *runner
	span time.Duration
	// dbHost is the database host and dbOffset its clock's offset from
	// ours, read when the window is launched.
	dbHost   string
	dbOffset time.Duration

	wg    sync.WaitGroup
	db    agent.Sample
	dbOK  bool
	dbErr error
}

// newFarSamples returns the samples a window of span launched here takes
// on other hosts; nil when everything it measures runs here.
func newFarSamples(r *runner, span time.Duration) *farSamples {
	host := r.dbs.host()
	if host == "" || r.fleet == nil {
		return nil
	}
	return &farSamples{r: r, span: span, dbHost: host, dbOffset: r.fleet.offsets[host].Offset}
}

// start asks every host for its sample over the window that starts at at
// (this machine's clock); windowSampler calls it once.
func (f *farSamples) start(ctx context.Context, at time.Time) {
	from := at.Add(f.dbOffset)
	f.wg.Go(func() { f.db, f.dbOK, f.dbErr = f.r.dbs.sample(ctx, from, from.Add(f.span)) })
}

// into waits for the samples and puts them in d: a host whose session
// dropped makes d lost (the window is redone), a sample that failed
// otherwise is a warning and leaves the figure out.
func (f *farSamples) into(d *driven, stack string) {
	f.wg.Wait()
	if d.lost == "" && f.dbErr != nil && errors.Is(f.dbErr, agent.ErrSessionLost) {
		d.lost, d.err = f.dbHost, f.dbErr
		return
	}
	d.database = databaseUsage(f.r, stack, f.dbHost, f.db, f.dbOK, f.dbErr)
}

// hostUsage is a process tree's usage as its own host measured it.
type hostUsage struct {
	host string
	use  journal.Usage
}

// databaseUsage is the database's usage sampled on host (ok: it was
// sampled there), or nil after a warning when the sample failed.
func databaseUsage(r *runner, stack, host string, s agent.Sample, ok bool, err error) *hostUsage {
	switch {
	case err != nil:
		r.event(journal.LevelWarning, stack, "%v", err)
	case ok:
		return &hostUsage{host: host, use: journal.Usage{CPUSeconds: s.CPUSeconds, Cores: s.Cores, RSSMeanBytes: s.RSSMeanBytes, RSSPeakBytes: s.RSSPeakBytes}}
	}
	return nil
}
