package run

import (
	"context"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// localSite runs the servers and the load generator on this machine.
type localSite struct {
	p siteParts
	// procs are the processes of the servers it started, until stopped.
	procs map[*server]*proc.Process
	// laneWarned holds the placement read-backs already warned about.
	laneWarned map[string]bool
	// listen, when set, is the HOST the servers are given: every address
	// (hostsSite.here, when generator hosts load the servers here).
	listen string
}

func newLocalSite(p siteParts) *localSite {
	return &localSite{p: p, procs: map[*server]*proc.Process{}}
}

func (l *localSite) startServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error) {
	r := l.p
	p, err := l.startStack(ctx, st)
	if err != nil {
		return nil, err
	}
	left := r.leftovers()
	left.rememberContainer(p)
	s := &server{stack: st, tree: p, seq: r.seq[st.Name], planProcess: planProcess}
	l.procs[s] = p
	if err := r.pools.setup(ctx, s, "127.0.0.1", s.tree.Port()); err != nil {
		r.stopServer(s)
		return nil, err
	}
	return s, nil
}

func (l *localSite) stopServer(s *server) error {
	delete(l.procs, s)
	return s.tree.Stop(stack.StopGrace)
}

func (l *localSite) launch(ctx context.Context, side windowSide, rec *journal.Window) (launched, error) {
	return l.launchTo(ctx, side, baseURL(side.srv), newFarSamples(l.p, side.load.window, nil))
}

// launchTo starts a generator here with side's load stream against base,
// the server's scheme, address and port (another host's address only when
// it is the server host of roles:), and a sampler here; far, when not
// nil, are the samples other hosts take over the same window.
func (l *localSite) launchTo(ctx context.Context, side windowSide, base string, far *farSamples) (launched, error) {
	lr, ws, probeBefore, err := l.launchAt(ctx, side.srv, side.load, base)
	if err != nil {
		return nil, err
	}
	if m := side.load.marks; m != nil {
		ws.hooks(m.opened, m.closed)
		m.launched()
	}
	switch {
	case far == nil:
	case !side.load.startAt.IsZero():
		far.start(ctx, side.load.startAt.Add(side.load.warmup.floor))
	default:
		ws.onStart = func(at time.Time) { far.start(ctx, at) }
	}
	return &localWindow{site: l, cur: side.srv, lr: lr, ws: ws, probeBefore: probeBefore, far: far}, nil
}

func (l *localSite) serverHost() (name, addr string) { return "", "127.0.0.1" }

func (l *localSite) ownGroups(ctx context.Context, cur *server) []proc.Group {
	var groups []proc.Group
	if p := l.procs[cur]; p != nil {
		groups = append(groups, p.Group("server"))
		groups = append(groups, l.serviceGroups(ctx, cur)...)
	}
	groups = append(groups, l.containerGroups()...)
	return append(groups, l.idleGroups(cur)...)
}

// idleGroups are the process trees of the live servers other than cur:
// up between their windows in an interleaved round, and ours, not foreign.
func (l *localSite) idleGroups(cur *server) []proc.Group {
	var gs []proc.Group
	for name, s := range l.p.live {
		if p := l.procs[s]; p != nil && s != cur {
			gs = append(gs, p.Group(idleGroupPrefix+name))
		}
	}
	return gs
}

// idleGroupPrefix names the sampler groups of idle servers.
const idleGroupPrefix = "idle:"

// localWindow is a window whose generator runs here, sampled here.
type localWindow struct {
	site        *localSite
	cur         *server
	lr          *loadRun
	ws          *windowSampler
	probeBefore float64
	// far are the samples taken on other hosts over the window (the
	// database on its own host, the server on the server host); nil when
	// none.
	far *farSamples
}

func (l *localWindow) drive(ctx context.Context, rec *journal.Window) driven {
	rec.CPUs = l.site.readPlacement(l.cur, l.lr)
	d := l.site.collect(ctx, l.lr, l.ws, rec, l.probeBefore)
	if l.far != nil {
		l.far.into(&d, l.cur.stack.Name)
	}
	return d
}

// launchAt starts a generator here with ls against cur at base, and a
// sampler of every process tree here, to be opened on the generator's
// window; it probes the host's speed first. A base beyond the loopback
// is the server host of roles: (a host of the file: --allow-remote).
func (l *localSite) launchAt(ctx context.Context, cur *server, ls loadStream, base string) (lr *loadRun, ws *windowSampler, probeBefore float64, err error) {
	r, c := l.p, ls.c
	var pool string
	if !cur.stack.Wire.GRPC() {
		if pool, err = r.pools.of(cur, c); err != nil {
			return nil, nil, 0, err
		}
	}
	lw, err := r.loadWireOf(cur, c)
	if err != nil {
		return nil, nil, 0, err
	}
	probeBefore = r.watch.probe()
	f, url := loadFlags(base, c, pool, lw, ls.conns, ls.rateRPS, ls.warmup, ls.window, r.opt.Plan.Protocol.Timeout)
	f.Output, f.EventsFD = "json", loadEventsFD
	f.AllowRemote, f.StartAt = base != baseURL(cur), ls.startAt
	lr, ws, err = l.startSampled(ctx, cur, append([]string{"load"}, f.Args(url)...), ls.window)
	return lr, ws, probeBefore, err
}

// startSampled starts the load generator with args and a sampler of every
// process tree (server, generator, harness, database), to be opened on the
// generator's window of the given length.
func (l *localSite) startSampled(ctx context.Context, cur *server, args []string, window time.Duration) (*loadRun, *windowSampler, error) {
	r := l.p
	lr, err := startLoad(r.opt.Stackbench, args, r.opt.Plan.Protocol.Placement.Lanes().Generator)
	if err != nil {
		return nil, nil, err
	}
	groups := l.windowGroups(ctx, cur, proc.TreeGroup("generator", lr.cmd.Process.Pid))
	return lr, newWindowSampler(proc.NewSampler(proc.DefaultSampleInterval, groups...), window), nil
}

// windowGroups are the sampler groups of a window here: the server when it
// runs here, the generator's (gen, when it runs here), the harness, the
// container runtime, the database when it runs here, the idle servers and
// the services.
func (l *localSite) windowGroups(ctx context.Context, cur *server, gen ...proc.Group) []proc.Group {
	var groups, services []proc.Group
	if p := l.procs[cur]; p != nil {
		// Its services are where it runs: here only with it.
		groups = append(groups, p.Group("server"))
		services = l.serviceGroups(ctx, cur)
	}
	groups = append(groups, gen...)
	groups = append(groups, proc.SelfGroup("harness"))
	groups = append(groups, l.containerGroups()...)
	if g, ok := l.p.dbs.group(ctx); ok {
		groups = append(groups, g)
		if own, ok := l.p.databaseOwnGroup(g, cur.stack.Name); ok {
			groups = append(groups, own)
		}
	}
	groups = append(groups, l.idleGroups(cur)...)
	return append(groups, services...)
}

// collect follows the generator's events (progress, the sampler's window)
// until it exits, probes the host's speed again when it was probed before
// (probeBefore above 0), and returns the generator's result and the
// sampler's.
func (l *localSite) collect(ctx context.Context, lr *loadRun, ws *windowSampler, rec *journal.Window, probeBefore float64) driven {
	r := l.p
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		lr.follow(func(ev load.Event) {
			switch ev.Kind {
			case load.Tick:
				r.progress.tick(ev.ElapsedSeconds, ev.Successes, ev.Errors)
				return
			case load.WarmupStart:
				r.progress.phase("warm-up")
			case load.MeasureStart:
				r.progress.phase("measuring")
			case load.MeasureEnd:
				r.progress.phase("draining")
			}
			ws.event(ev)
		})
	}()
	t0 := time.Now()
	res, err := lr.wait(ctx)
	<-followed
	if probeBefore > 0 {
		rec.Probe = &journal.Probe{BeforeMs: probeBefore, AfterMs: r.watch.probe(), ReferenceMs: r.watch.prober.ReferenceMs}
	}
	rec.Timings.LoadSeconds = time.Since(t0).Seconds()
	return driven{res: res, stats: ws.result(), err: err} // result closes the sampler if the generator died mid-window
}
