package run

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// hostsSite runs the servers on the server host of roles: through its
// agent, and the load from the generator hosts; either side may be this
// machine instead (here): the servers when roles: names no server:, the
// load when it names no generators:.
type hostsSite struct {
	p  siteParts
	fl *fleet
	// host is the server host ("": this machine), generators the hosts
	// the load is split across (none: this machine).
	host       string
	generators []string
	// here runs what runs on this machine: the servers (listening on
	// every address, for the generator hosts) when host is "", the
	// generator when generators is empty.
	here *localSite
	// trees are the servers it started on the server host, until stopped.
	trees map[*server]*remoteTree
	// synced maps each stack to its dir on the server host, once synced
	// in this invocation.
	synced map[string]string
	// images maps each container stack to the runtime that readied its
	// image on the server host, once in this invocation (remoteImage).
	images map[string]string
	// caDirs maps each host to its copy of the database's CA directory
	// (databaseState.dbCADir), once synced in this invocation.
	caDirs map[string]string
	// ca is the run's throwaway CA (PEM), once read; described holds the
	// serialized descriptors of each gRPC stack's methods, by stack and
	// method (site_hosts_wire.go).
	ca        []byte
	described map[string][]byte
	// loaded, when set (tests), is called once every generator of a
	// window has been sent its load (the generator here: once it
	// started), with the window's key and attempt.
	loaded func(key string, attempt int, fl *fleet)
}

// newHostsSite is the site of roles: (server: or generators: named);
// loaded is the tests' hook (hostsSite.loaded).
// Servers here listen on every address: the generator hosts reach them at
// this machine's address on their link.
func newHostsSite(p siteParts, fl *fleet, roles *plan.Roles, loaded func(key string, attempt int, fl *fleet)) *hostsSite {
	here := newLocalSite(p)
	if roles.Server == "" {
		here.listen = remoteServerHost
	}
	return &hostsSite{p: p, fl: fl, host: roles.Server, generators: roles.Generators, here: here, trees: map[*server]*remoteTree{}, loaded: loaded}
}

func (h *hostsSite) startServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error) {
	if h.host == "" {
		return h.here.startServer(ctx, st, planProcess)
	}
	t, err := h.startRemote(ctx, h.host, st)
	if err != nil {
		return nil, err
	}
	s := &server{stack: st, tree: t, host: h.host, seq: h.p.seq[st.Name], planProcess: planProcess}
	h.trees[s] = t
	// The setup steps go from here to the server at its host's address,
	// as the generators reach it.
	if err := h.p.pools.setup(ctx, s, h.fl.addr(h.host), t.Port()); err != nil {
		h.p.stopServer(s)
		return nil, err
	}
	return s, nil
}

func (h *hostsSite) stopServer(s *server) error {
	if _, ok := h.trees[s]; !ok {
		return h.here.stopServer(s)
	}
	delete(h.trees, s)
	return s.tree.Stop(stack.StopGrace)
}

func (h *hostsSite) launch(ctx context.Context, side windowSide, rec *journal.Window) (launched, error) {
	if len(h.generators) == 0 {
		l, err := h.launchHere(ctx, side)
		if err == nil && h.loaded != nil {
			h.loaded(rec.Key, rec.Attempt, h.fl)
		}
		return l, err
	}
	ls := side.load
	if ls.c.IsFlow() && ls.rateRPS > 0 {
		// The schedule of flows would have to be split between the
		// generators' users; not done yet (stackbench plan refuses a
		// flow with latency: and generators:).
		return nil, fmt.Errorf("case %s is a flow at a fixed rate (%g flows/s), which is not yet split across generator hosts; leave the flow out of the fixed-rate windows, or leave generators: out of roles:", ls.c.Name, ls.rateRPS)
	}
	files, err := h.windowFiles(ctx, side.srv, ls.c)
	if err != nil {
		return nil, err
	}
	rw := &remoteWindow{files: files, generators: h.generators, p: h.p, cur: side.srv, tree: h.trees[side.srv], c: ls.c, conns: ls.conns, rateRPS: ls.rateRPS,
		warmup: ls.fixedWarmup(), window: ls.window, marks: ls.marks, loaded: h.loaded, here: h.here}
	return rw, nil
}

// launchHere starts side's load from a generator here against the server
// on the server host, at that host's address; the server host's agent
// samples the server over the window the generator here announces
// (farSamples). A profile window's perf there must start seconds ahead
// of the window (perf reads every process's maps first): its generator
// starts at an instant maxRemoteLead ahead with its warm-up fixed, as a
// profile window across hosts does, and the server host is asked at once.
func (h *hostsSite) launchHere(ctx context.Context, side windowSide) (launched, error) {
	t := h.trees[side.srv]
	s, err := h.fl.session(ctx, h.host)
	if err != nil {
		return nil, err
	}
	srv := &farServer{host: h.host, name: t.name, services: side.srv.stack.Services, agent: s.Agent, offset: h.fl.offsets[h.host].Offset}
	if m := side.load.marks; m != nil && m.serverPerf != nil {
		srv.perf = m.serverPerf
		side.load.warmup = warmupSpan{floor: side.load.fixedWarmup()}
		side.load.startAt = time.Now().Add(maxRemoteLead)
	}
	base := side.srv.stack.BaseURL(net.JoinHostPort(h.fl.addr(h.host), strconv.Itoa(t.Port())))
	return h.here.launchTo(ctx, side, base, newFarSamples(h.p, side.load.window, srv))
}

func (h *hostsSite) serverHost() (name, addr string) {
	if h.host == "" {
		return h.here.serverHost()
	}
	return h.host, h.fl.addr(h.host)
}

// ownGroups are, with the servers here, the local site's; with the
// servers on their host, none here.
func (h *hostsSite) ownGroups(ctx context.Context, cur *server) []proc.Group {
	if h.host == "" {
		return h.here.ownGroups(ctx, cur)
	}
	return nil
}
