package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/remote"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

// serverTree is a server's process tree wherever it runs: *proc.Process
// here, remoteTree on the server host. What crosses it is plain data.
type serverTree interface {
	PID() int
	// Port is the TCP port it serves on, on its host.
	Port() int
	BootDuration() time.Duration
	// Check says why the tree is gone, or nil while it runs.
	Check() error
	Stop(grace time.Duration) error
}

// remoteTree is a server started on another host by that host's agent.
type remoteTree struct {
	fl   *fleet
	host string
	// name is the agent's name for the tree.
	name string
	pid  int
	port int
	boot time.Duration
}

func (t *remoteTree) PID() int                    { return t.pid }
func (t *remoteTree) Port() int                   { return t.port }
func (t *remoteTree) BootDuration() time.Duration { return t.boot }

// Check reports a session that dropped: the agent stopped the server with
// it. (A server that exits on its own is seen in its failed requests.)
func (t *remoteTree) Check() error {
	if t.fl.lost(t.host) {
		return fmt.Errorf("the session with host %s dropped, and its agent stopped the server with it", t.host)
	}
	return nil
}

func (t *remoteTree) Stop(grace time.Duration) error {
	if t.fl.lost(t.host) {
		return nil // the agent stopped it when the session dropped
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace+10*time.Second)
	defer cancel()
	return t.fl.sessions[t.host].Agent.Stop(ctx, t.name)
}

// runSyncExclude is what run leaves out when it synchronises a built
// stack's dir: the agent's defaults (agent.DefaultExclude) but
// node_modules, which a build here made for the server to use.
var runSyncExclude = []string{".git", ".venv", "__pycache__"}

// remoteServerHost is the HOST a server on another host is given: every
// address, so that the generators reach it at the host's address and
// its agent's health check at 127.0.0.1.
const remoteServerHost = "0.0.0.0"

// startRemote starts a fresh process of st on host through its agent, on
// a port the agent found free, with the environment a local start gives
// and HOST set so that it listens beyond loopback.
func (h *hostsSite) startRemote(ctx context.Context, host string, st plan.Stack) (*remoteTree, error) {
	r := h.p
	s, err := r.fleet.session(ctx, host)
	if err != nil {
		return nil, err
	}
	dir, err := h.syncStack(ctx, s, host, st)
	if err != nil {
		return nil, err
	}
	port, err := s.Agent.FreePort(ctx)
	if err != nil {
		return nil, fmt.Errorf("find a free port for %s on %s: %w", st.Name, host, err)
	}
	harness, err := h.remoteHarness(ctx, s, host, st.Name)
	if err != nil {
		return nil, err
	}
	r.seq[st.Name]++
	name := fmt.Sprintf("%s.%d", st.Name, r.seq[st.Name])
	harness.Host = remoteServerHost
	spec := agent.StartSpec{Name: name, Dir: dir, Command: st.Start, Env: stack.Env(st, port, harness), Port: port, HealthPath: st.Health,
		LogPath: name, BootTimeout: stack.BootTimeoutOf(st)}
	if err := h.serverWire(st, &spec); err != nil {
		return nil, err
	}
	if spec.Container, err = h.remoteImage(ctx, s, host, dir, st); err != nil {
		return nil, err
	}
	pid, boot, container, err := s.Agent.StartContainer(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("start %s on %s: %w (its log on that host: %s.log under ~/.cache/stackbench/logs)", st.Name, host, err, spec.LogPath)
	}
	if container != "" {
		r.leftovers().rememberContainerOn(host, spec.Container.Runtime, container)
	}
	return &remoteTree{fl: r.fleet, host: host, name: name, pid: pid, port: port, boot: boot}, nil
}

// remoteHarness is r.harness for a stack on host: its DATABASE_URL, when
// the database speaks TLS, verifies the server against a copy of the
// database's CA on that host (synced once per invocation) instead of the
// file here.
func (h *hostsSite) remoteHarness(ctx context.Context, s *remote.Session, host, stackName string) (stack.Harness, error) {
	r := h.p
	harness := r.harness(stackName)
	if harness.DatabaseURL == "" || r.dbCADir == "" {
		return harness, nil
	}
	dir, ok := h.caDirs[host]
	if !ok {
		res, err := s.Agent.SyncDir(ctx, r.dbCADir, agent.SyncOptions{})
		if err != nil {
			return harness, fmt.Errorf("copy the database's CA to %s: %w", host, err)
		}
		dir = res.Dir
		if h.caDirs == nil {
			h.caDirs = map[string]string{}
		}
		h.caDirs[host] = dir
	}
	u, err := pgfix.WithRootCert(harness.DatabaseURL, path.Join(dir, "ca.crt"))
	if err != nil {
		return harness, err
	}
	harness.DatabaseURL = u
	return harness, nil
}

// syncStack makes the stack's dir, as built here, present on host (the
// agent's SyncDir: only the files the host lacks are sent), once per
// stack and invocation, and returns its directory there.
func (h *hostsSite) syncStack(ctx context.Context, s *remote.Session, host string, st plan.Stack) (string, error) {
	r := h.p
	if dir, ok := h.synced[st.Name]; ok {
		return dir, nil
	}
	t0 := time.Now()
	// The build ran here, so its output goes with the sources,
	// node_modules included (the host must share this machine's OS and
	// architecture for it, as for a compiled binary). A virtualenv is
	// left out: its scripts name this machine's absolute paths.
	res, err := s.Agent.SyncDir(ctx, st.Dir, agent.SyncOptions{Exclude: runSyncExclude})
	if err != nil {
		return "", fmt.Errorf("copy %s's dir %s to %s: %w", st.Name, st.Dir, host, err)
	}
	r.progress.logf("%s: dir synchronised to %s:%s (%d files, %d sent, %d bytes, %d removed) in %s",
		st.Name, host, res.Dir, res.Files, res.Sent, res.SentBytes, res.Removed, time.Since(t0).Round(time.Millisecond))
	if h.synced == nil {
		h.synced = map[string]string{}
	}
	h.synced[st.Name] = res.Dir
	return res.Dir, nil
}

// maxLostRedos bounds how often one window is redone because a host's
// session dropped during it.
const maxLostRedos = 3

// remoteWindow is a window loaded from the generator hosts and sampled
// on the server host. Its warm-up is fixed: an adaptive one would end at
// a different moment on each generator.
type remoteWindow struct {
	p   siteParts
	cur *server
	// generators are the hosts the load is split across.
	generators []string
	// tree is cur's process tree on the server host; nil when cur runs
	// here, sampled by here over the window's instants (as the database
	// is when it runs here).
	tree  *remoteTree
	here  *localSite
	c     workload.Case
	conns int
	// rateRPS is the open loop's rate over all the generators (0: a
	// closed loop); each sends the share of its connections.
	rateRPS float64
	// files are what every generator is sent with the window
	// (hostsSite.windowFiles): the request pool or the gRPC messages it
	// sends from, the run's CA, the gRPC descriptors. Its Args are each
	// generator's own.
	files  agent.LoadSpec
	warmup time.Duration
	window time.Duration
	// marks, when set, are told of the window's course (loadStream's).
	marks *windowMarks
	// loaded, when set (tests), is called once every generator has been
	// sent its load (hostsSite.loaded).
	loaded func(key string, attempt int, fl *fleet)
}

// split divides n connections across k generators as evenly as it can;
// a generator that would get none is left out.
func split(n, k int) []int {
	var out []int
	for i := range k {
		if c := n/k + btoi(i < n%k); c > 0 {
			out = append(out, c)
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// drive schedules the warm-up at one instant on every generator (each on
// its own clock: the instant plus the host's offset), samples the server
// tree on its host over the measured window (converted to that host's
// clock), waits for all, and merges the generators' results.
func (rw *remoteWindow) drive(ctx context.Context, rec *journal.Window) driven {
	r, fl := rw.p, rw.p.fleet
	hosts := rw.generators
	conns := split(rw.conns, len(hosts))
	hosts = hosts[:len(conns)]
	sessions := make([]*agentSession, len(hosts))
	for i, h := range hosts {
		s, err := fl.session(ctx, h)
		if err != nil {
			return driven{err: err, lost: h}
		}
		// The server's address as this generator reaches it: the server
		// host's in hosts:, or this machine's on the link to it.
		addr := s.Conn.LocalIP()
		if rw.tree != nil {
			addr = fl.addr(rw.cur.host)
		}
		sessions[i] = &agentSession{host: h, c: s.Agent, off: fl.offsets[h],
			base: rw.cur.stack.BaseURL(net.JoinHostPort(addr, strconv.Itoa(rw.cur.tree.Port())))}
	}
	size := rw.files.Size()
	// perf on the server host reads every process's maps before it
	// records: a profile window asks it seconds ahead.
	lead := fl.lead.next(size, rw.marks != nil && rw.marks.serverPerf != nil)
	launched := time.Now()
	start := launched.Add(lead)
	from := start.Add(rw.warmup)
	to := from.Add(rw.window)

	results := make([]json.RawMessage, len(hosts))
	errs := make([]error, len(hosts))
	var sample agent.Sample
	var sampleErr error
	var wg sync.WaitGroup
	t0 := time.Now()
	r.progress.phase("warm-up and window on " + countHosts(len(hosts)))
	firstUser := 0
	for i, s := range sessions {
		rate := rw.rateRPS * float64(conns[i]) / float64(rw.conns)
		spec := rw.files
		spec.Args = remoteLoadArgs(s.base, rw.c, rw.cur.stack.Wire, rw.files, conns[i], firstUser, rate, rw.warmup, rw.window, r.opt.Plan.Protocol.Timeout, start.Add(s.off.Offset))
		firstUser += conns[i]
		wg.Go(func() { results[i], errs[i] = s.c.Load(ctx, spec) })
	}
	var here *windowSampler
	if rw.tree != nil {
		srv, err := fl.session(ctx, rw.cur.host)
		if err != nil {
			return driven{err: err, lost: rw.cur.host}
		}
		srvOff := fl.offsets[rw.cur.host]
		wg.Go(func() {
			sample, sampleErr = srv.Agent.SampleWith(ctx, rw.tree.name, rw.cur.stack.Services, from.Add(srvOff.Offset), to.Add(srvOff.Offset))
		})
		if m := rw.marks; m != nil && m.serverPerf != nil {
			wg.Go(func() {
				m.serverPerf(srv.Agent.Perf(ctx, agent.PerfSpec{Name: rw.tree.name, From: from.Add(srvOff.Offset), To: to.Add(srvOff.Offset)}))
			})
		}
	}
	if _, dbHere := r.dbs.group(ctx); rw.tree == nil || dbHere {
		// The server, or the database, runs here: sampled here, between
		// the window's instants on this machine's clock.
		here = newWindowSampler(proc.NewSampler(proc.DefaultSampleInterval, rw.here.windowGroups(ctx, rw.cur)...), rw.window)
		here.at(from, here.open)
		here.at(to, here.close)
	}
	var dbSample agent.Sample
	var dbOK bool
	var dbErr error
	dbHost := r.dbs.host()
	if dbHost != "" {
		dbOff := fl.offsets[dbHost]
		wg.Go(func() {
			dbSample, dbOK, dbErr = r.dbs.sample(ctx, from.Add(dbOff.Offset), to.Add(dbOff.Offset))
		})
	}
	if rw.loaded != nil {
		rw.loaded(rec.Key, rec.Attempt, fl)
	}
	unmark := rw.mark(from, to)
	wg.Wait()
	unmark()
	var stats *proc.WindowStats
	if here != nil {
		stats = here.result()
	}
	rec.Timings.LoadSeconds = time.Since(t0).Seconds()

	for i, err := range errs {
		if err != nil && errors.Is(err, agent.ErrSessionLost) {
			return driven{err: err, lost: hosts[i]}
		}
	}
	if sampleErr != nil && errors.Is(sampleErr, agent.ErrSessionLost) {
		return driven{err: sampleErr, lost: rw.cur.host}
	}
	if dbErr != nil && errors.Is(dbErr, agent.ErrSessionLost) {
		return driven{err: dbErr, lost: dbHost}
	}
	if err := errors.Join(errs...); err != nil {
		return driven{err: err}
	}
	parts := make([]*load.Result, len(hosts))
	for i, raw := range results {
		parts[i] = &load.Result{}
		if err := json.Unmarshal(raw, parts[i]); err != nil {
			return driven{err: fmt.Errorf("the generator on %s sent a result that is not one: %w", hosts[i], err)}
		}
	}
	merged, err := load.Merge(parts)
	if err != nil {
		return driven{err: err}
	}
	d := driven{res: merged, partResults: parts, hosts: hosts, stats: stats}
	var late []string
	for i, p := range parts {
		if p.ReadyUnixNano == 0 {
			continue // a generator of an earlier stackbench does not say
		}
		off := fl.offsets[hosts[i]]
		ready := time.Unix(0, p.ReadyUnixNano).Add(-off.Offset)
		fl.lead.observe(launched, ready, off.Bound, size)
		if why := lateStart(hosts[i], start, ready, off.Bound, lead); why != "" {
			late = append(late, why)
		}
	}
	if len(late) > 0 {
		fl.lead.reset()
		if lead < maxRemoteLead {
			d.late = strings.Join(late, "; ")
		} else {
			r.event(journal.LevelWarning, rw.cur.stack.Name, "%s: %s", rec.Key, strings.Join(late, "; "))
		}
	}
	for i, p := range parts {
		d.parts = append(d.parts, generatorPart(hosts[i], fl.offsets[hosts[i]], conns[i], p))
	}
	d.generators = generatorsUsage(merged)
	switch {
	case rw.tree == nil:
	case sampleErr != nil:
		r.event(journal.LevelWarning, rw.cur.stack.Name, "sampling %s on %s: %v", rw.cur.stack.Name, rw.cur.host, sampleErr)
	default:
		rec.WallSeconds = sample.Wall.Seconds()
		d.serverHost = &sample
	}
	d.database = databaseUsage(r.event, rw.cur.stack.Name, dbHost, dbSample, dbOK, dbErr)
	return d
}

// mark tells rw.marks of the window's course: launched now, opened and
// closed at from and to on this machine's clock (the instants the
// generators measure between, converted from theirs). The function it
// returns is called once every generator is done: it closes a window
// that opened and is not closed yet (a generator that ended early), and
// cancels an opening that never came.
func (rw *remoteWindow) mark(from, to time.Time) (unmark func()) {
	m := rw.marks
	if m == nil {
		return func() {}
	}
	m.launched()
	var mu sync.Mutex
	opened, closed := false, false
	closeOnce := func() {
		if opened && !closed {
			m.closed()
		}
		closed = true
	}
	open := time.AfterFunc(time.Until(from), func() {
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			opened = true
			m.opened()
		}
	})
	shut := time.AfterFunc(time.Until(to), func() {
		mu.Lock()
		defer mu.Unlock()
		closeOnce()
	})
	return func() {
		open.Stop()
		shut.Stop()
		mu.Lock()
		defer mu.Unlock()
		closeOnce()
	}
}

// agentSession is one generator's agent and its clock offset, and the
// server's scheme, address and port as that generator reaches it.
type agentSession struct {
	host string
	c    *agent.Client
	off  agent.ClockOffset
	base string
}

func countHosts(n int) string {
	if n == 1 {
		return "1 generator host"
	}
	return strconv.Itoa(n) + " generator hosts"
}

// sentFile stands, in the flags loadFlags writes for a generator host,
// for a file sent with the window (agent.LoadSpec): the agent writes it
// and names it with its flag, so remoteLoadArgs leaves the flag out.
const sentFile = "(sent with the window)"

// remoteLoadArgs is a generator host's command line: the case at conns
// connections over the stack's wire, in an open loop at rateRPS (0:
// closed), a fixed warm-up, starting at startAt on that host's clock, the
// target being a host of the file (--allow-remote). The files the window
// carries (files: its request pool or flow, gRPC messages and metadata,
// CA and descriptors) are named by the agent, which writes them. A flow's
// users on this generator are numbered from firstUser (the connections
// of the generators before it), so that every user keeps the draws it
// has when one generator runs them all.
func remoteLoadArgs(base string, c workload.Case, wire plan.Wire, files agent.LoadSpec, conns, firstUser int, rateRPS float64, warmup, window, timeout time.Duration, startAt time.Time) []string {
	lw := loadWire{wire: wire}
	pool := ""
	for _, f := range []struct {
		sent bool
		name *string
	}{{len(files.Requests) > 0 || len(files.Flow) > 0, &pool}, {len(files.Messages) > 0, &lw.messages}, {len(files.Metadata) > 0, &lw.metadata}, {len(files.CACert) > 0, &lw.caFile}, {len(files.Descriptors) > 0, &lw.proto}} {
		if f.sent {
			*f.name = sentFile
		}
	}
	f, url := loadFlags(base, c, pool, lw, conns, rateRPS, warmupSpan{floor: warmup}, window, timeout)
	for _, name := range []*string{&f.Requests, &f.Flow, &f.Messages, &f.Metadata, &f.CACert, &f.Proto} {
		if *name == sentFile {
			*name = ""
		}
	}
	if c.IsFlow() {
		f.FirstUser = firstUser
	}
	f.AllowRemote, f.StartAt, f.Output = true, startAt, "json"
	return append([]string{"load"}, f.Args(url)...)
}

// generatorPart is one generator host's record of a window; its window's
// boundaries are converted to our clock.
func generatorPart(host string, off agent.ClockOffset, conns int, p *load.Result) journal.GeneratorPart {
	return journal.GeneratorPart{
		Host: host, Connections: conns, RateRPS: p.Rate,
		Attempts: p.Attempts, Successes: p.Successes, Failures: p.Errors, Unsent: p.Unsent,
		ClientBound: p.ClientBound, CPUSeconds: p.GeneratorCPUSeconds,
		MeasureStartUnixNano: p.MeasureStartUnixNano - off.Offset.Nanoseconds(),
		MeasureEndUnixNano:   p.MeasureEndUnixNano - off.Offset.Nanoseconds(),
		ClockOffsetSeconds:   off.Offset.Seconds(), ClockBoundSeconds: off.Bound.Seconds(),
		LatencyHist: p.LatencyHist,
	}
}

// serverHostUsage records what the server host measured over the window:
// the server's CPU and memory (its tree's, or its container's cgroup's),
// its services' (the trees listening on the stack's services: ports
// there), that host's busy CPU, and its foreign CPU: read there process by
// process and from its ticks, the larger kept, none of it the server, its
// services, a container's runtime (its command and daemons) or the agent
// (the harness's overhead, as here: trap T21); from an older agent, the
// ticks' reading alone.
func serverHostUsage(rec *journal.Window, s agent.Sample) {
	rec.Server = journal.Usage{CPUSeconds: s.CPUSeconds, Cores: s.Cores, RSSMeanBytes: s.RSSMeanBytes, RSSPeakBytes: s.RSSPeakBytes, Processes: 1}
	rec.HostBusyCores = s.HostBusyCores
	ours := s.Cores
	if v := s.Services; v != nil {
		rec.Services = &journal.Usage{CPUSeconds: v.CPUSeconds, Cores: v.Cores, RSSMeanBytes: v.RSSMeanBytes, RSSPeakBytes: v.RSSPeakBytes, Processes: v.Processes}
		ours += v.Cores
	}
	if v := s.Runtime; v != nil {
		ours += v.Cores
	}
	if s.ForeignProcessCores > 0 || s.ForeignTickCores > 0 {
		// Read on that host process by process as well as from its ticks
		// (an agent of this version); the gate takes the larger, as here.
		rec.ForeignProcessCores, rec.ForeignTickCores = s.ForeignProcessCores, s.ForeignTickCores
		rec.ForeignCores = max(s.ForeignProcessCores, s.ForeignTickCores)
		return
	}
	rec.ForeignCores = max(0, s.HostBusyCores-ours-s.AgentCores)
}

// generatorsUsage is the generator hosts' CPU over the window, by their
// own account (their results' generator CPU).
func generatorsUsage(merged *load.Result) *journal.Usage {
	if merged.DurationSeconds <= 0 {
		return nil
	}
	return &journal.Usage{CPUSeconds: merged.GeneratorCPUSeconds, Cores: merged.GeneratorCPUSeconds / merged.DurationSeconds}
}
