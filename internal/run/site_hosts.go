package run

import (
	"context"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
)

// hostsSite runs the servers on the server host of roles: through its
// agent, and the load from the generator hosts.
type hostsSite struct {
	r  *runner
	fl *fleet
	// host is the server host, generators the hosts the load is split
	// across.
	host       string
	generators []string
	// trees are the servers it started, until stopped.
	trees map[*server]*remoteTree
	// synced maps each stack to its dir on the server host, once synced
	// in this invocation.
	synced map[string]string
	// caDirs maps each host to its copy of the database's CA directory
	// (runner.dbCADir), once synced in this invocation.
	caDirs map[string]string
	// ca is the run's throwaway CA (PEM), once read; described holds the
	// serialized descriptors of each gRPC stack's methods, by stack and
	// method (site_hosts_wire.go).
	ca        []byte
	described map[string][]byte
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
	// The setup steps go from here to the server at its host's address,
	// as the generators reach it.
	if err := h.r.pools.setup(ctx, s, h.fl.addr(h.host), t.Port()); err != nil {
		h.r.stopServer(s)
		return nil, err
	}
	return s, nil
}

func (h *hostsSite) stopServer(s *server) error {
	delete(h.trees, s)
	return s.tree.Stop(stack.StopGrace)
}

func (h *hostsSite) launch(ctx context.Context, side windowSide, _ *journal.Window) (launched, error) {
	ls := side.load
	files, err := h.windowFiles(ctx, side.srv, ls.c)
	if err != nil {
		return nil, err
	}
	return &remoteWindow{files: files, generators: h.generators, r: h.r, cur: side.srv, tree: h.trees[side.srv], c: ls.c, conns: ls.conns, rateRPS: ls.rateRPS,
		warmup: ls.fixedWarmup(), window: ls.window, marks: ls.marks, loaded: h.loaded}, nil
}

func (h *hostsSite) serverHost() (name, addr string) { return h.host, h.fl.addr(h.host) }

func (h *hostsSite) ownGroups(context.Context, *server) []proc.Group { return nil }
