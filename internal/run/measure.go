package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/workload"
)

// MaxSuspendRedos bounds how often a window is redone because the machine
// slept during it.
const MaxSuspendRedos = 3

// server is the stack process currently serving windows.
type server struct {
	stack plan.Stack
	// tree is the process tree, here or on the server host; what only
	// its site knows of it (a local process's /proc and container, a
	// remote agent's name for it) stays in the site.
	tree serverTree
	// host is the host of hosts: it runs on; "" for this machine.
	host  string
	seq   int
	cases []string // served so far, in order
	// planProcess is the plan's number for this process (plan.Window.Process).
	planProcess int
	// captures are the setup steps' values for this process (nil without
	// a scenario).
	captures map[string][]string
}

// roundsPhase is the plan's windows, round by round, with their latency
// windows.
type roundsPhase struct {
	r       *runner
	latency *latencyPhase
}

// run runs every window of the plan not yet journaled, in plan order.
// Each plan process is started at its first window still to measure and
// stopped after its last one; in an interleaved round several are up at
// once, each stack's own, and all but the one measured sit idle.
func (ph *roundsPhase) run(ctx context.Context) error {
	r := ph.r
	r.live = map[string]*server{}
	defer func() {
		for name, s := range r.live {
			r.stopServer(s)
			delete(r.live, name)
		}
	}()
	todo := ph.remaining()
	if r.out.Measured == 0 {
		// Windows journaled before this invocation (a resume); an adaptive
		// run's later calls come after windows this invocation measured.
		r.out.Skipped = len(r.opt.Plan.Windows) - len(todo)
	}
	r.progress.begin(len(todo), r.opt.Plan.EstimateWindows(todo))
	last := lastWindowOfProcess(r.opt.Plan.Windows)
	for i, w := range r.opt.Plan.Windows {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !r.done[w.Key] {
			if err := ph.measureWindow(ctx, w); err != nil {
				return err
			}
		}
		if err := ph.latency.measure(ctx, w); err != nil {
			return err
		}
		if last[w.Process] == i {
			if s := r.live[w.Stack]; s != nil && s.planProcess == w.Process {
				r.stopServer(s)
				delete(r.live, w.Stack)
			}
		}
		if i+1 == len(r.opt.Plan.Windows) || r.opt.Plan.Windows[i+1].Round != w.Round {
			r.checkPace(w.Round)
		}
	}
	return nil
}

// liveServer returns w's stack's live process, starting a fresh one at
// each process boundary of the plan (a resumed run also starts one for
// the first window it measures). A stack that does not start fails w
// through fail and gives nil and no error; nil and an error only when
// the run was interrupted.
func (ph *roundsPhase) liveServer(ctx context.Context, w plan.Window, fail func(msg string)) (*server, error) {
	r := ph.r
	cur := r.live[w.Stack]
	if cur != nil && cur.planProcess == w.Process {
		return cur, nil
	}
	r.stopServer(cur)
	delete(r.live, w.Stack)
	st, _ := r.opt.File.Stack(w.Stack)
	s, err := r.newServer(ctx, st, w.Process)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		fail(fmt.Sprintf("the stack did not start: %v", err))
		return nil, nil
	}
	r.live[w.Stack] = s
	return s, nil
}

// keepLive records cur as stack's live process after a window (nil: it
// died and was not restarted).
func (ph *roundsPhase) keepLive(stack string, cur *server) {
	r := ph.r
	if cur == nil {
		delete(r.live, stack)
		return
	}
	r.live[stack] = cur
}

// measureWindow measures one window on its stack's live process
// (liveServer).
func (ph *roundsPhase) measureWindow(ctx context.Context, w plan.Window) error {
	r := ph.r
	c, _ := r.opt.File.Workload.Case(w.Case)
	cur, err := ph.liveServer(ctx, w, func(msg string) { ph.failWindow(w, msg) })
	if cur == nil {
		return err
	}
	cur, err = ph.window(ctx, cur, w, c)
	ph.keepLive(w.Stack, cur)
	return err
}

// lastWindowOfProcess maps each plan process to the index of its last
// window.
func lastWindowOfProcess(ws []plan.Window) map[int]int {
	last := map[int]int{}
	for i, w := range ws {
		last[w.Process] = i
	}
	return last
}

// idleGroups are the process trees of the live servers other than cur:
// up between their windows in an interleaved round, and ours, not foreign.
func (l *localSite) idleGroups(cur *server) []proc.Group {
	var gs []proc.Group
	for name, s := range l.r.live {
		if p := l.procs[s]; p != nil && s != cur {
			gs = append(gs, p.Group(idleGroupPrefix+name))
		}
	}
	return gs
}

// idleGroupPrefix names the sampler groups of idle servers.
const idleGroupPrefix = "idle:"

// remaining lists the windows still to measure.
func (ph *roundsPhase) remaining() []plan.Window {
	r := ph.r
	var ws []plan.Window
	for _, w := range r.opt.Plan.Windows {
		if !r.done[w.Key] {
			ws = append(ws, w)
		}
	}
	return ws
}

// newServer starts a fresh process of st on the run's site.
func (r *runner) newServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error) {
	return r.site.startServer(ctx, st, planProcess)
}

func (r *runner) stopServer(s *server) {
	if s == nil {
		return
	}
	if err := r.site.stopServer(s); err != nil {
		r.event(journal.LevelWarning, s.stack.Name, "stopping %s: %v", s.stack.Name, err)
	}
}

// window measures one window, redoing it when the protocol says so, and
// returns the server to use next (a restarted one if it died).
func (ph *roundsPhase) window(ctx context.Context, cur *server, w plan.Window, c workload.Case) (*server, error) {
	r := ph.r
	floor, cap := r.opt.Plan.Protocol.WarmupFor(cur.stack)
	ls := loadStream{c: c, conns: w.Concurrency, warmup: warmupSpan{floor, cap}, window: r.opt.Plan.Protocol.Window}
	return ph.tries(ctx, cur, w, ls, r.journalWindow)
}

// journalWindow appends a window record (fsynced) and updates the outcome.
func (r *runner) journalWindow(rec *journal.Window) error {
	if err := r.jw.Append(journal.KindWindow, rec); err != nil {
		return err
	}
	if rec.Final {
		r.done[rec.Key] = true
		r.out.Measured++
		for _, f := range rec.Flags {
			r.out.Flagged[f]++
		}
		if rec.HasFlag(journal.FlagFailed) {
			r.out.FailedCells = append(r.out.FailedCells, rec.Key)
		}
		r.progress.window(rec)
	} else {
		r.progress.logf("redo %s: %s", rec.Key, joinReasons(rec))
	}
	return nil
}

// failWindow journals a window that could not be measured at all.
func (ph *roundsPhase) failWindow(w plan.Window, msg string) {
	r := ph.r
	if err := r.journalWindow(r.failedRecord(w, msg)); err != nil {
		r.progress.logf("journal: %v", err)
	}
}

// failedRecord is the record of a further attempt at w that failed with
// msg before it measured anything.
func (r *runner) failedRecord(w plan.Window, msg string) *journal.Window {
	r.attempts[w.Key]++
	rec := newRecord(w, r.attempts[w.Key], r.envCount)
	flagger{rec}.add(journal.FlagFailed, "%s", msg)
	rec.Error = msg
	rec.EndedAt = rec.StartedAt
	return rec
}

func newRecord(w plan.Window, attempt, envRef int) *journal.Window {
	return &journal.Window{
		Key: w.Key, Index: w.Index, Round: w.Round, Slot: w.Slot,
		Stack: w.Stack, Case: w.Case, Concurrency: w.Concurrency,
		Attempt: attempt, Final: true, Flags: []journal.Flag{},
		StartedAt:      time.Now().UTC(),
		EnvironmentRef: envRef,
	}
}

// launched is a window's load under way: the generator here with its
// sampler (localWindow), or generators on other hosts (remoteWindow).
type launched interface {
	// drive follows the window to its end and returns what it measured;
	// it records in rec what only it knows (placement, probe, timings).
	drive(ctx context.Context, rec *journal.Window) driven
}

// localWindow is a window whose generator runs here, sampled here.
type localWindow struct {
	site        *localSite
	cur         *server
	lr          *loadRun
	ws          *windowSampler
	probeBefore float64
}

func (l *localWindow) drive(ctx context.Context, rec *journal.Window) driven {
	rec.CPUs = l.site.readPlacement(l.cur, l.lr)
	return l.site.collect(ctx, l.lr, l.ws, rec, l.probeBefore)
}

// prepareTry readies the database and waits for a quiet host.
func (x *runWindows) prepareTry(ctx context.Context, cur *server, w plan.Window, rec *journal.Window) error {
	r := x.r
	if err := x.prepareDatabase(ctx, w, rec); err != nil {
		return err
	}
	rec.DBBefore = r.dbStats(ctx, w.Stack)
	return r.watch.gateWait(ctx, cur, rec)
}

// warmupSpan is a warm-up's floor and cap: fixed when max is not above
// floor, otherwise until throughput is steady (load.WarmupRule).
type warmupSpan struct{ floor, max time.Duration }

// launchAt starts a generator here with ls against cur, and a sampler of
// every process tree, to be opened on the generator's window; it probes
// the host's speed first.
func (l *localSite) launchAt(ctx context.Context, cur *server, ls loadStream) (lr *loadRun, ws *windowSampler, probeBefore float64, err error) {
	r, c := l.r, ls.c
	pool := ""
	switch {
	case c.Templated:
		if pool, err = l.variantPool(cur, c); err != nil {
			return nil, nil, 0, err
		}
	case r.opt.Plan.Protocol.Spread:
		if pool, err = l.poolFile(c); err != nil {
			return nil, nil, 0, err
		}
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", cur.tree.Port())
	probeBefore = r.watch.probe()
	lr, ws, err = l.startSampled(ctx, cur, loadArgsAt(base, c, pool, ls.conns, ls.rateRPS, ls.warmup, ls.window, r.opt.Plan.Protocol.Timeout), ls.window)
	return lr, ws, probeBefore, err
}

// startSampled starts the load generator with args and a sampler of every
// process tree (server, generator, harness, database), to be opened on the
// generator's window of the given length.
func (l *localSite) startSampled(ctx context.Context, cur *server, args []string, window time.Duration) (*loadRun, *windowSampler, error) {
	r := l.r
	lr, err := startLoad(r.opt.Stackbench, args, r.opt.Plan.Protocol.Placement.Lanes().Generator)
	if err != nil {
		return nil, nil, err
	}
	groups := []proc.Group{l.procs[cur].Group("server"), proc.TreeGroup("generator", lr.cmd.Process.Pid), proc.SelfGroup("harness")}
	groups = append(groups, l.containerGroups()...)
	if g, ok := r.databaseGroup(ctx); ok {
		groups = append(groups, g)
	}
	groups = append(groups, l.idleGroups(cur)...)
	groups = append(groups, l.serviceGroups(ctx, cur)...)
	return lr, newWindowSampler(proc.NewSampler(proc.DefaultSampleInterval, groups...), window), nil
}

// driven is what one try's generator and sampler gave.
type driven struct {
	res   *load.Result
	stats *proc.WindowStats // nil when the window never opened (or was sampled on other hosts)
	err   error             // the generator gave no result: data, not a harness error
	// lost names the host whose session dropped during the window (err
	// says how); "" otherwise.
	lost string
	// parts are the generator hosts' own results, in their order, when
	// the load came from other hosts; res is their merge.
	parts []journal.GeneratorPart
	// partResults are the same parts' whole results, of the hosts in
	// hosts, for the per-generator judgement.
	partResults []*load.Result
	hosts       []string
}

// collect follows the generator's events (progress, the sampler's window)
// until it exits, probes the host's speed again when it was probed before
// (probeBefore above 0), and returns the generator's result and the
// sampler's.
func (l *localSite) collect(ctx context.Context, lr *loadRun, ws *windowSampler, rec *journal.Window, probeBefore float64) driven {
	r := l.r
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

// judgeTry records what a try measured and raises its flags: a server that
// died, a generator that failed, then the load's and the database's checks.
func judgeTry(rec *journal.Window, cur *server, d driven) {
	if d.stats != nil {
		fillUsage(rec, *d.stats)
	}
	if err := cur.tree.Check(); err != nil {
		flagger{rec}.add(journal.FlagServerDied, "%v", err)
		rec.Error = err.Error()
	}
	if d.err != nil {
		rec.Error = d.err.Error()
		if !rec.HasFlag(journal.FlagServerDied) {
			flagger{rec}.add(journal.FlagFailed, "%v", d.err)
		}
		return
	}
	rec.Load = journal.ConvertPtr(d.res, journal.LoadResultOf)
	rec.Generators = d.parts
	if d.stats != nil {
		alignSampler(rec, *d.stats, d.res)
	}
	if len(d.partResults) > 0 {
		judgeMerged(rec, d.res, d.partResults, d.hosts)
	} else {
		judgeLoad(rec, d.res)
	}
	judgeDB(rec)
}

// fillUsage copies the sampler's figures into the record.
func fillUsage(rec *journal.Window, s proc.WindowStats) {
	use := func(name string) journal.Usage {
		g, ok := s.Group(name)
		if !ok {
			return journal.Usage{}
		}
		return journal.Usage{CPUSeconds: g.CPUSeconds, Cores: g.Cores, RSSMeanBytes: g.RSSMeanBytes, RSSPeakBytes: g.RSSPeakBytes, Processes: g.Processes}
	}
	rec.Server = use("server")
	rec.Database = use("database")
	rec.Generator = use("generator")
	rec.Harness = use("harness")
	for _, g := range s.Groups {
		if strings.HasPrefix(g.Name, serviceGroupPrefix) {
			if rec.Services == nil {
				rec.Services = &journal.Usage{}
			}
			addUsage(rec.Services, g)
		}
		if strings.HasPrefix(g.Name, idleGroupPrefix) {
			if rec.IdleServers == nil {
				rec.IdleServers = &journal.Usage{}
			}
			rec.IdleServers.CPUSeconds += g.CPUSeconds
			rec.IdleServers.Cores += g.Cores
			rec.IdleServers.RSSMeanBytes += g.RSSMeanBytes
			rec.IdleServers.RSSPeakBytes += g.RSSPeakBytes
			rec.IdleServers.Processes += g.Processes
		}
	}
	rec.WallSeconds = s.Wall.Seconds()
	rec.HostBusyCores = s.HostBusyCores
	rec.ForeignCores = s.ForeignCores
	rec.SamplerCPUSeconds = s.SamplerCPUSeconds
	rec.Suspended = s.Suspended
}

// alignSampler records how far the sampler's window lagged the load's: its
// opening and closing snapshots against the generator's own boundaries.
func alignSampler(rec *journal.Window, s proc.WindowStats, res *load.Result) {
	if s.Opened.IsZero() || res.MeasureStartUnixNano == 0 || res.MeasureEndUnixNano == 0 {
		return
	}
	opened := s.Opened.UnixNano()
	closed := opened + s.Wall.Nanoseconds()
	rec.SamplerStartLagSeconds = float64(opened-res.MeasureStartUnixNano) / 1e9
	rec.SamplerEndLagSeconds = float64(closed-res.MeasureEndUnixNano) / 1e9
}

// prepareDatabase resets the orders table before a window that inserts
// (trap T3) and takes a checkpoint before every window (trap T4).
func (x *runWindows) prepareDatabase(ctx context.Context, w plan.Window, rec *journal.Window) error {
	r := x.r
	_, db := r.dbOf(w.Stack)
	if db == nil {
		return nil
	}
	if w.Inserts {
		t0 := time.Now()
		switch {
		case r.fixture != nil:
			if err := db.Reset(ctx, r.fixture.Reset); err != nil {
				return fmt.Errorf("reset the database before %s: %w; fix workload.database.reset", w.Key, err)
			}
		default:
			if err := db.ResetOrders(ctx); err != nil {
				return fmt.Errorf("reset orders before %s: %w", w.Key, err)
			}
		}
		rec.Timings.ResetSeconds = time.Since(t0).Seconds()
	}
	t0 := time.Now()
	if err := db.Checkpoint(ctx); err != nil {
		return fmt.Errorf("checkpoint before %s: %w", w.Key, err)
	}
	rec.Timings.CheckpointSeconds = time.Since(t0).Seconds()
	return nil
}

// poolFile writes a case's spread requests (workload.Requests) as a request
// pool the first time it is needed; the generator sends them round-robin.
func (l *localSite) poolFile(c workload.Case) (string, error) {
	r := l.r
	if l.pools == nil {
		l.pools = map[string]string{}
	}
	if p, ok := l.pools[c.Name]; ok {
		return p, nil
	}
	dir, err := r.poolDir()
	if err != nil {
		return "", err
	}
	var buf []byte
	for _, req := range r.opt.File.Workload.Requests(c, r.opt.Plan.JWTSecret, true) {
		line, err := json.Marshal(req.LoadRequest())
		if err != nil {
			return "", errors.New("encode request pool: " + err.Error())
		}
		buf = append(append(buf, line...), '\n')
	}
	path := filepath.Join(dir, c.Name+".jsonl")
	if err := os.WriteFile(path, buf, privateFileMode); err != nil {
		return "", err
	}
	l.pools[c.Name] = path
	return path, nil
}

func joinReasons(rec *journal.Window) string {
	if len(rec.Reasons) == 0 {
		return "no reason"
	}
	return strings.Join(rec.Reasons, "; ")
}
