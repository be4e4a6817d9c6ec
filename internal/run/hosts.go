package run

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/stack"
)

// Reconnecting: a host whose session dropped is dialled again this many
// times, this far apart, before the run stops on it.
const (
	reconnectTries = 3
	reconnectPause = time.Second
)

// ErrHostUnreachable wraps the error that stops a run when a host of
// roles: cannot be reached (at the start, or again after its session
// dropped). The journal keeps every window measured before it.
var ErrHostUnreachable = errors.New("host unreachable")

// fleet is the run's sessions with the hosts of roles:, one per host,
// opened at the start of each invocation and opened again when one drops.
// It is used by the measuring goroutine only, apart from the concurrent
// calls of one window on distinct sessions.
type fleet struct {
	opt      remote.Options
	hosts    map[string]remote.Host
	sessions map[string]*remote.Session
	// offsets are the hosts' clock offsets, measured when their session
	// opened.
	offsets map[string]agent.ClockOffset
	// clocked are the hosts whose offset must be within
	// remote.MaxGeneratorClockError (the generators).
	clocked map[string]bool
	// lead sets how far ahead a window across hosts is scheduled.
	lead remoteLead
	logf func(format string, a ...any)
}

// newFleet is the fleet of the file's hosts; nothing is dialled yet.
func newFleet(f *plan.File, o remote.Options, logf func(string, ...any)) *fleet {
	fl := &fleet{opt: o, hosts: map[string]remote.Host{}, sessions: map[string]*remote.Session{},
		offsets: map[string]agent.ClockOffset{}, clocked: map[string]bool{}, logf: logf}
	for _, h := range f.Hosts {
		fl.hosts[h.Name] = remote.Host{Name: h.Name, User: h.User, Addr: h.Addr, Port: h.Port, Identity: h.Identity}
	}
	if f.Roles != nil {
		for _, g := range f.Roles.Generators {
			fl.clocked[g] = true
		}
	}
	return fl
}

// open connects to every named host at once and measures their clocks.
func (fl *fleet) open(ctx context.Context, names []string) error {
	errs := make([]error, len(names))
	sessions := make([]*remote.Session, len(names))
	offsets := make([]agent.ClockOffset, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { sessions[i], offsets[i], errs[i] = fl.connect(ctx, name) })
	}
	wg.Wait()
	for i, name := range names {
		if sessions[i] != nil {
			fl.add(name, sessions[i], offsets[i])
		}
	}
	return errors.Join(errs...)
}

// connect opens one host's session and measures its clock offset; a
// generator host whose offset is not known within
// remote.MaxGeneratorClockError is refused with the figures.
// It only reads fl, so that hosts are connected at once.
func (fl *fleet) connect(ctx context.Context, name string) (*remote.Session, agent.ClockOffset, error) {
	var none agent.ClockOffset
	h, ok := fl.hosts[name]
	if !ok {
		return nil, none, fmt.Errorf("roles name host %q, which is not in hosts:", name)
	}
	s, err := remote.Connect(ctx, h, fl.opt)
	if err != nil {
		return nil, none, fmt.Errorf("%w: %v", ErrHostUnreachable, err)
	}
	off, err := s.Agent.Clock(ctx, remote.ClockExchanges)
	if err != nil {
		s.Close()
		return nil, none, fmt.Errorf("host %s: measure its clock: %w", name, err)
	}
	if fl.clocked[name] && off.Bound > remote.MaxGeneratorClockError {
		s.Close()
		return nil, none, fmt.Errorf("generator host %s: its clock offset is known only to ±%s (the shortest of %d exchanges took %s), over the %s the generators' windows may differ by; a generator needs a faster, steadier link to this machine",
			name, off.Bound.Round(time.Microsecond), off.Exchanges, (2 * off.Bound).Round(time.Microsecond), remote.MaxGeneratorClockError)
	}
	return s, off, nil
}

// add keeps a connected host's session and offset, and says so.
func (fl *fleet) add(name string, s *remote.Session, off agent.ClockOffset) {
	fl.sessions[name], fl.offsets[name] = s, off
	fl.logf("host %s (%s): %s, %d CPUs (%s), agent protocol %d, clock %s", name, fl.hosts[name].Target(), s.Platform, s.Hello.CPUs, s.Hello.Hostname, s.Hello.Version, off)
}

// session returns name's live session, reconnecting when it dropped; an
// error wrapping ErrHostUnreachable when it stays unreachable.
func (fl *fleet) session(ctx context.Context, name string) (*remote.Session, error) {
	if s := fl.sessions[name]; s != nil && s.Agent.Err() == nil {
		return s, nil
	}
	if s := fl.sessions[name]; s != nil {
		go s.Close() // the connection is gone; this only reaps it
		delete(fl.sessions, name)
	}
	var err error
	for try := 1; try <= reconnectTries; try++ {
		var s *remote.Session
		var off agent.ClockOffset
		if s, off, err = fl.connect(ctx, name); err == nil {
			fl.logf("host %s: reconnected", name)
			fl.add(name, s, off)
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, ErrHostUnreachable) {
			return nil, err
		}
		if try < reconnectTries {
			time.Sleep(reconnectPause)
		}
	}
	h := fl.hosts[name]
	return nil, fmt.Errorf("host %s (%s) stayed unreachable after %d tries: %w", name, h.Target(), reconnectTries, err)
}

// lost reports whether name's session has dropped.
func (fl *fleet) lost(name string) bool {
	s := fl.sessions[name]
	return s == nil || s.Agent.Err() != nil
}

// addr is the address a host of the file is reached at.
func (fl *fleet) addr(name string) string { return fl.hosts[name].Addr }

// close ends every session: each agent stops what it started.
func (fl *fleet) close() {
	for name, s := range fl.sessions {
		s.Close()
		delete(fl.sessions, name)
	}
}

// remoteRoles lists the hosts the file's roles put the server, the
// database and the generators on, each once, in that order.
func remoteRoles(r *plan.Roles) []string {
	if r == nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range append([]string{r.Server, r.Database}, r.Generators...) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// hostsPhase opens the sessions with the hosts of roles: first, and
// closes them last.
type hostsPhase struct{ r *runner }

// open connects to the hosts of roles: at the start of the
// invocation (a resume reconnects here). A run without roles elsewhere
// has no fleet.
func (ph *hostsPhase) open(ctx context.Context) error {
	r := ph.r
	names := remoteRoles(r.opt.File.Roles)
	if len(names) == 0 {
		return nil
	}
	if err := RemoteSupported(r.opt.File, r.opt.Plan); err != nil {
		return err
	}
	// Each connection is journaled as an event: which host, its
	// platform and CPUs, and its clock offset when the windows ran.
	r.fleet = newFleet(r.opt.File, r.opt.Remote, func(f string, a ...any) { r.event(journal.LevelInfo, "", f, a...) })
	if err := r.fleet.open(ctx, names); err != nil {
		r.fleet.close()
		r.fleet = nil
		return err
	}
	if r.opt.Resume {
		leftoversOf(r).stopOnHosts(ctx, r.fleet)
	}
	if roles := r.opt.File.Roles; roles.Server != "" || len(roles.Generators) > 0 {
		if err := serverHostCertificate(r.opt.File, logsDir(r.opt.Dir), r.fleet.serverAddrs(roles)...); err != nil {
			r.fleet.close()
			r.fleet = nil
			return err
		}
		r.site = newHostsSite(r.siteParts(), r.fleet, roles, r.hooks.loaded)
	}
	return nil
}

// serverAddrs are the addresses the servers are dialled at from the
// generators' side: the server host's address in hosts:, or, with the
// servers here, this machine's address on the link to each generator
// host (the local end of its SSH connection).
func (fl *fleet) serverAddrs(roles *plan.Roles) []string {
	if roles.Server != "" {
		return []string{fl.addr(roles.Server)}
	}
	var out []string
	for _, g := range roles.Generators {
		if s := fl.sessions[g]; s != nil && !slices.Contains(out, s.Conn.LocalIP()) {
			out = append(out, s.Conn.LocalIP())
		}
	}
	return out
}

// serverHostCertificate makes the run's throwaway certificate valid at
// the addresses the servers are dialled at from the generators' side
// (addrs: fleet.serverAddrs) too, when a stack serves TLS: the generator
// hosts and the setup steps dial them. It runs before anything else asks
// for the certificate; the parity gate and the cold starts here use the
// same one, at 127.0.0.1.
func serverHostCertificate(f *plan.File, logDir string, addrs ...string) error {
	for _, s := range f.Stacks {
		if s.Wire.TLS {
			if _, err := stack.TLSFilesFor(logDir, addrs...); err != nil {
				return fmt.Errorf("the run's TLS certificate for %s: %w", strings.Join(addrs, ", "), err)
			}
			return nil
		}
	}
	return nil
}

// databasePhase brings up the run's database, here or on its host.
type databasePhase struct{ r *runner }

// run brings up the database: on the database host of roles:
// through its agent (the cluster listens on the host's address, which the
// server host reaches), or here.
func (ph *databasePhase) run(ctx context.Context) error {
	r := ph.r
	host := databaseHost(r.opt.File)
	if host == "" || r.fleet == nil {
		return r.setupDatabase(ctx)
	}
	s, err := r.fleet.session(ctx, host)
	if err != nil {
		return err
	}
	return r.setupRemoteDatabase(ctx, s.Agent, host, r.fleet.addr(host))
}

// close ends the sessions.
func (ph *hostsPhase) close() {
	r := ph.r
	if r.fleet != nil {
		r.fleet.close()
	}
}

// RemoteSupported says what a file whose roles put a role on another host
// asks that run cannot do yet; nil when run can measure it. Today run
// places the servers, the database and the load generators, and measures
// the windows, the latency windows (the generators share the offered
// rate by their connections), the capacity searches and the profile
// windows (pprof: read from here at the server host's address; perf:
// recorded there by its agent) across them, on
// every wire (TLS, h2, h2c, gRPC: the server host serves the run's
// certificate, the generator hosts are sent its CA and the gRPC
// descriptors; site_hosts_wire.go), with setup steps run from here
// against the server host and request pools sent to the generator hosts.
// Any role may stay here (hostsSite.here): the servers (listening on
// every address, loaded from the generator hosts at this machine's
// address on their link and sampled here over the window's instants),
// the generator (loading the server host, whose agent samples the server
// over the window the generator announces: farSamples), the database
// (sampled on its host over each window, wherever the load comes from;
// the embedded cluster here, with the servers on a host, listens on this
// machine's address on the link to it over TLS: runner.linkDatabase, and
// is sampled here over each window's instants).
// A stack's services: are sampled where its server runs. A container
// stack runs on the server host as here: its image built or found there,
// its container's cgroup sampled by that host's agent as the server and
// the runtime apart (container_hosts.go). The features below are refused.
func RemoteSupported(f *plan.File, p *plan.Plan) error {
	r := f.Roles
	if !r.Remote() {
		return nil
	}
	// never is what cannot be measured with roles on other hosts,
	// whoever builds it.
	var never []string
	pr := p.Protocol
	for _, s := range f.Stacks {
		if h, ok := s.Env["HOST"]; ok && loopbackHost(h) && (r.Server != "" || len(r.Generators) > 0) {
			never = append(never, fmt.Sprintf("stack %s with HOST=%s in its env: it would listen on the loopback only, which the load from another host cannot reach (run gives a server dialled from another host HOST=0.0.0.0); drop HOST from its env, or set it to 0.0.0.0", s.Name, h))
		}
		// A container stack's image is built on the server host from the
		// copy of its dir there: a Dockerfile outside the dir is not in it.
		// Said here, before the builds and the parity gate.
		if s.Container != nil && r.Server != "" {
			if _, err := dockerfileThere(s); err != nil {
				never = append(never, err.Error())
			}
		}
	}
	if pr.Placement.IsLanes() {
		never = append(never, "placement: lanes, which divides this machine's CPUs between the server, the generator and the database: with the roles on hosts of their own nothing here is divided; use placement: shared")
	}
	if len(never) == 0 {
		return nil
	}
	return fmt.Errorf("%s puts roles on other hosts, and these cannot be measured with them: %s", f.Name, joinList(never))
}

// loopbackHost reports whether a HOST value names the loopback only.
func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func joinList(xs []string) string {
	out := ""
	for i, x := range xs {
		switch {
		case i == 0:
		case i == len(xs)-1:
			out += "; and "
		default:
			out += "; "
		}
		out += x
	}
	return out
}
