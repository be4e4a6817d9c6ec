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
// hosts: the database on its own host (roles: database:), and the server
// on the server host when the load comes from here (roles: server:
// without generators:). Each host's agent is asked when the generator
// says when its measured window starts (windowSampler.onStart:
// measure_at, ahead of the boundary), over that window converted to the
// host's clock (this machine's instant plus the host's clock offset, as a
// window across hosts converts its instants), and the samples are awaited
// after the load. So what is sampled there covers the window the
// generator measured here, to within the offsets' bounds.
type farSamples struct {
	p    siteParts
	span time.Duration
	// dbHost is the database host ("" when the database is not on one)
	// and dbOffset its clock's offset from ours, read when the window is
	// launched.
	dbHost   string
	dbOffset time.Duration
	// srv is the server on its host; nil when it runs here.
	srv *farServer

	wg     sync.WaitGroup
	db     agent.Sample
	dbOK   bool
	dbErr  error
	srvSmp agent.Sample
	srvErr error
	// started is set once start has run (before into, which waits for
	// the generator's events to end).
	started bool
}

// farServer is a server's process tree on the server host, sampled (and
// recorded with perf, when perf is set: windowMarks.serverPerf) by that
// host's agent over a window loaded from here.
type farServer struct {
	host string
	name string
	// services are the stack's services: ports, whose listeners on the
	// server host are sampled with it.
	services []int
	agent    *agent.Client
	offset   time.Duration
	perf     func(profile []byte, err error)
}

// newFarSamples returns the samples a window of span launched here takes
// on other hosts, srv's included; nil when everything it measures runs
// here.
func newFarSamples(r siteParts, span time.Duration, srv *farServer) *farSamples {
	f := &farSamples{p: r, span: span, srv: srv}
	if host := r.dbs.host(); host != "" && r.fleet != nil {
		f.dbHost, f.dbOffset = host, r.fleet.offsets[host].Offset
	}
	if f.dbHost == "" && srv == nil {
		return nil
	}
	return f
}

// start asks every host for its sample over the window that starts at at
// (this machine's clock); windowSampler calls it once.
func (f *farSamples) start(ctx context.Context, at time.Time) {
	f.started = true
	if f.dbHost != "" {
		from := at.Add(f.dbOffset)
		f.wg.Go(func() { f.db, f.dbOK, f.dbErr = f.p.dbs.sample(ctx, from, from.Add(f.span)) })
	}
	if s := f.srv; s != nil {
		from := at.Add(s.offset)
		f.wg.Go(func() { f.srvSmp, f.srvErr = s.agent.SampleWith(ctx, s.name, s.services, from, from.Add(f.span)) })
		if s.perf != nil {
			f.wg.Go(func() { s.perf(s.agent.Perf(ctx, agent.PerfSpec{Name: s.name, From: from, To: from.Add(f.span)})) })
		}
	}
}

// into waits for the samples and puts them in d: a host whose session
// dropped makes d lost (the window is redone), a sample that failed
// otherwise is a warning and leaves the figure out.
func (f *farSamples) into(d *driven, stack string) {
	f.wg.Wait()
	if s := f.srv; s != nil && !f.started && s.perf != nil {
		s.perf(nil, errors.New("the window never opened"))
	}
	for _, e := range []struct {
		host string
		err  error
	}{{f.dbHost, f.dbErr}, {f.hostOf(f.srv), f.srvErr}} {
		if d.lost == "" && e.err != nil && errors.Is(e.err, agent.ErrSessionLost) {
			d.lost, d.err = e.host, e.err
			return
		}
	}
	if f.dbHost != "" {
		d.database = databaseUsage(f.p.event, stack, f.dbHost, f.db, f.dbOK, f.dbErr)
	}
	switch s := f.srv; {
	case s == nil || !f.started:
	case f.srvErr != nil:
		f.p.event(journal.LevelWarning, stack, "sampling %s on %s: %v", stack, s.host, f.srvErr)
	default:
		d.serverHost = &f.srvSmp
	}
}

func (f *farSamples) hostOf(s *farServer) string {
	if s == nil {
		return ""
	}
	return s.host
}

// hostUsage is a process tree's usage as its own host measured it.
type hostUsage struct {
	host string
	use  journal.Usage
}

// databaseUsage is the database's usage sampled on host (ok: it was
// sampled there), or nil after a warning when the sample failed.
func databaseUsage(event func(level journal.Level, stack, format string, a ...any), stack, host string, s agent.Sample, ok bool, err error) *hostUsage {
	switch {
	case err != nil:
		event(journal.LevelWarning, stack, "%v", err)
	case ok:
		return &hostUsage{host: host, use: journal.Usage{CPUSeconds: s.CPUSeconds, Cores: s.Cores, RSSMeanBytes: s.RSSMeanBytes, RSSPeakBytes: s.RSSPeakBytes}}
	}
	return nil
}
