package run

import (
	"context"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// A site is where a run's servers run and its load comes from: this
// machine (localSite) or the hosts of roles: (hostsSite, the servers on
// the server host and the load from the generator hosts). The phases
// start servers, launch load and sample through it, and none knows which
// it has. What a site keeps of a server (a *proc.Process here, an agent's
// name there) stays in the site: a server crosses the seam as its
// serverTree, plain data and a lifecycle.
type site interface {
	// startServer starts a fresh process of st as plan process
	// planProcess (-1 outside the plan's windows) and runs the workload's
	// setup steps on it.
	startServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error)
	// stopServer stops s's process tree and forgets it.
	stopServer(s *server) error
	// launch starts side's load stream against its server, sampling
	// every process tree over the window, and returns it under way; it
	// records in rec what it alone knows.
	launch(ctx context.Context, side windowSide, rec *journal.Window) (launched, error)
	// ownGroups are the sampler groups, on this machine, of what the run
	// keeps up beside the harness and the database while cur serves: cur
	// itself, its services, its idle peers of an interleaved round, the
	// container runtime. The gate counts them as the run's, not foreign.
	// None when the servers run on another host.
	ownGroups(ctx context.Context, cur *server) []proc.Group
}

// localSite runs the servers and the load generator on this machine.
type localSite struct {
	r *runner
	// procs are the processes of the servers it started, until stopped.
	procs map[*server]*proc.Process
	// pools are the request pools written so far (spread requests by
	// case, a templated case's variants by stack and case or process),
	// captures each stack's setup captures (the stack-scoped steps'),
	// from its first process of this invocation.
	pools    map[string]string
	captures map[string]map[string][]string
	// laneWarned holds the placement read-backs already warned about.
	laneWarned map[string]bool
}

func newLocalSite(r *runner) *localSite { return &localSite{r: r, procs: map[*server]*proc.Process{}} }

func (l *localSite) startServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error) {
	r := l.r
	p, err := l.startStack(ctx, st)
	if err != nil {
		return nil, err
	}
	r.rememberServer(p.PID(), p.Mark())
	r.rememberContainer(p)
	s := &server{stack: st, tree: p, seq: r.seq[st.Name], planProcess: planProcess}
	l.procs[s] = p
	if err := l.setupServer(ctx, s); err != nil {
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
	lr, ws, probeBefore, err := l.launchAt(ctx, side.srv, side.load)
	if err != nil {
		return nil, err
	}
	if side.load.started != nil {
		side.load.started(ws)
	}
	return &localWindow{site: l, cur: side.srv, lr: lr, ws: ws, probeBefore: probeBefore}, nil
}

func (l *localSite) ownGroups(ctx context.Context, cur *server) []proc.Group {
	var groups []proc.Group
	if p := l.procs[cur]; p != nil {
		groups = append(groups, p.Group("server"))
		groups = append(groups, l.serviceGroups(ctx, cur)...)
	}
	groups = append(groups, l.containerGroups()...)
	return append(groups, l.idleGroups(cur)...)
}

// hostsSite runs the servers on the server host of roles: through its
// agent, and the load from the generator hosts.
type hostsSite struct {
	r  *runner
	fl *fleet
	// host is the server host.
	host string
	// trees are the servers it started, until stopped.
	trees map[*server]*remoteTree
	// synced maps each stack to its dir on the server host, once synced
	// in this invocation.
	synced map[string]string
	// loaded, when set (tests), is called once every generator of a
	// window has been sent its load, with the window's key and attempt.
	loaded func(key string, attempt int, fl *fleet)
}

func (h *hostsSite) startServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error) {
	t, err := h.startRemote(ctx, h.host, st)
	if err != nil {
		return nil, err
	}
	s := &server{stack: st, tree: t, host: h.host, seq: h.r.seq[st.Name], planProcess: planProcess}
	h.trees[s] = t
	return s, nil
}

func (h *hostsSite) stopServer(s *server) error {
	delete(h.trees, s)
	return s.tree.Stop(stack.StopGrace)
}

func (h *hostsSite) launch(_ context.Context, side windowSide, _ *journal.Window) (launched, error) {
	ls := side.load
	return &remoteWindow{r: h.r, cur: side.srv, tree: h.trees[side.srv], c: ls.c, conns: ls.conns,
		warmup: ls.fixedWarmup(), window: ls.window, loaded: h.loaded}, nil
}

func (h *hostsSite) ownGroups(context.Context, *server) []proc.Group { return nil }
