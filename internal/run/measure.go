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
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

// MaxSuspendRedos bounds how often a window is redone because the machine
// slept during it.
const MaxSuspendRedos = 3

// server is the stack process currently serving windows.
type server struct {
	stack plan.Stack
	// tree is the process tree, here or on the server host; p is the same
	// tree when it runs here (nil on another host): what only a local
	// tree has (its /proc, its container) goes through p.
	tree serverTree
	p    *proc.Process
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

// measure runs every window of the plan not yet journaled, in plan order.
// Each plan process is started at its first window still to measure and
// stopped after its last one; in an interleaved round several are up at
// once, each stack's own, and all but the one measured sit idle.
func (r *runner) measure(ctx context.Context) error {
	r.live = map[string]*server{}
	defer func() {
		for name, s := range r.live {
			r.stopServer(s)
			delete(r.live, name)
		}
	}()
	todo := r.remaining()
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
			if err := r.measureWindow(ctx, w); err != nil {
				return err
			}
		}
		if err := r.measureLatency(ctx, w); err != nil {
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
func (r *runner) liveServer(ctx context.Context, w plan.Window, fail func(msg string)) (*server, error) {
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
func (r *runner) keepLive(stack string, cur *server) {
	if cur == nil {
		delete(r.live, stack)
		return
	}
	r.live[stack] = cur
}

// measureWindow measures one window on its stack's live process
// (liveServer).
func (r *runner) measureWindow(ctx context.Context, w plan.Window) error {
	c, _ := r.opt.File.Workload.Case(w.Case)
	cur, err := r.liveServer(ctx, w, func(msg string) { r.failWindow(w, msg) })
	if cur == nil {
		return err
	}
	cur, err = r.window(ctx, cur, w, c)
	r.keepLive(w.Stack, cur)
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
func (r *runner) idleGroups(cur *server) []proc.Group {
	var gs []proc.Group
	for name, s := range r.live {
		if s != nil && s != cur {
			if s.p != nil {
				gs = append(gs, s.p.Group(idleGroupPrefix+name))
			}
		}
	}
	return gs
}

// idleGroupPrefix names the sampler groups of idle servers.
const idleGroupPrefix = "idle:"

// remaining lists the windows still to measure.
func (r *runner) remaining() []plan.Window {
	var ws []plan.Window
	for _, w := range r.opt.Plan.Windows {
		if !r.done[w.Key] {
			ws = append(ws, w)
		}
	}
	return ws
}

func (r *runner) newServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error) {
	if host := r.serverHost(); host != "" {
		t, err := r.startRemote(ctx, host, st)
		if err != nil {
			return nil, err
		}
		return &server{stack: st, tree: t, host: host, seq: r.seq[st.Name], planProcess: planProcess}, nil
	}
	p, err := r.startStack(ctx, st)
	if err != nil {
		return nil, err
	}
	r.rememberServer(p.PID())
	r.rememberContainer(p)
	s := &server{stack: st, tree: p, p: p, seq: r.seq[st.Name], planProcess: planProcess}
	if err := r.setupServer(ctx, s); err != nil {
		r.stopServer(s)
		return nil, err
	}
	return s, nil
}

func (r *runner) stopServer(s *server) {
	if s == nil {
		return
	}
	if err := s.tree.Stop(stack.StopGrace); err != nil {
		r.event(journal.LevelWarning, s.stack.Name, "stopping %s: %v", s.stack.Name, err)
	}
}

// window measures one window, redoing it when the protocol says so, and
// returns the server to use next (a restarted one if it died).
func (r *runner) window(ctx context.Context, cur *server, w plan.Window, c workload.Case) (*server, error) {
	once := func(cur *server) (*journal.Window, error) { return r.measureOnce(ctx, cur, w, c) }
	return r.tries(ctx, cur, w, once, r.journalWindow)
}

// tries measures w's tries with once, journaling each with record, until
// one is final: a server that died is restarted once, a try disturbed by
// the host is redone within the gate's budget.
func (r *runner) tries(ctx context.Context, cur *server, w plan.Window, once func(*server) (*journal.Window, error), record func(*journal.Window) error) (*server, error) {
	diedOnce := false
	disturbed := 0 // tries redone for the host (contended, suspended)
	lost := 0      // tries redone because a host's session dropped
	for {
		rec, err := once(cur)
		if err != nil {
			return cur, err
		}
		if host := r.lostHost; host != "" {
			r.lostHost = ""
			lost++
			if cur, err = r.afterLost(ctx, cur, w, rec, host, lost, record); err != nil || cur == nil {
				return cur, err
			}
			continue
		}
		redo := false
		switch {
		case rec.HasFlag(journal.FlagServerDied):
			r.event(journal.LevelWarning, w.Stack, "%s died during %s: %s", w.Stack, w.Key, rec.Error)
			r.stopServer(cur)
			if diedOnce {
				flagger{rec}.add(journal.FlagFailed, "the server died again after a restart; the cell is failed and the run goes on")
			} else {
				diedOnce, redo = true, true
			}
			ns, serr := r.newServer(ctx, cur.stack, cur.planProcess)
			if serr != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				r.event(journal.LevelWarning, w.Stack, "restarting %s failed: %v", w.Stack, serr)
				if redo {
					flagger{rec}.add(journal.FlagFailed, "the server could not be restarted")
					redo = false
				}
				cur = nil
			} else {
				cur = ns
			}
		case rec.Load != nil:
			if redo = r.judge(rec, disturbed); redo {
				disturbed++
			}
		}
		if redo {
			rec.Final = false
		}
		if err := record(rec); err != nil {
			return cur, err
		}
		if !redo {
			return cur, nil
		}
		if cur == nil {
			return nil, nil
		}
	}
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
func (r *runner) failWindow(w plan.Window, msg string) {
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

// measureOnce runs one try of a window: database preparation, the gate, the
// load generator with the sampler over its measured window, and the
// checks after it. A failed request is data; only a broken harness (journal,
// context) is an error.
func (r *runner) measureOnce(ctx context.Context, cur *server, w plan.Window, c workload.Case) (*journal.Window, error) {
	r.attempts[w.Key]++
	return r.try(ctx, cur, w, r.attempts[w.Key], func() (launched, error) {
		if len(r.generatorHosts()) > 0 {
			return r.launchRemote(cur, w, c), nil
		}
		return r.local(cur)(r.launch(ctx, cur, w, c))
	})
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
	r           *runner
	cur         *server
	lr          *loadRun
	ws          *windowSampler
	probeBefore float64
}

func (l *localWindow) drive(ctx context.Context, rec *journal.Window) driven {
	rec.CPUs = l.r.readPlacement(l.cur, l.lr)
	return l.r.collect(ctx, l.lr, l.ws, rec, l.probeBefore)
}

// local wraps launchAt's results as a launched window of cur.
func (r *runner) local(cur *server) func(*loadRun, *windowSampler, float64, error) (launched, error) {
	return func(lr *loadRun, ws *windowSampler, probeBefore float64, err error) (launched, error) {
		if err != nil {
			return nil, err
		}
		return &localWindow{r: r, cur: cur, lr: lr, ws: ws, probeBefore: probeBefore}, nil
	}
}

// try runs one try of w on cur as its attempt: the checks before, the
// database and the gate, the generator that launch starts (with the
// sampler over its window and the host-speed probe before it), and the
// checks after it. Windows and capacity probes differ only in launch.
func (r *runner) try(ctx context.Context, cur *server, w plan.Window, attempt int,
	launch func() (launched, error)) (*journal.Window, error) {
	rec := newRecord(w, attempt, r.envCount)
	rec.Process = journal.ProcessInfo{PID: cur.tree.PID(), Seq: cur.seq,
		CasesBefore: append([]string{}, cur.cases...), BootSeconds: cur.tree.BootDuration().Seconds()}
	rec.ServerHost = cur.host
	r.progress.current(w, rec.Attempt)

	if err := cur.tree.Check(); err != nil {
		flagger{rec}.add(journal.FlagServerDied, "%v", err)
		rec.Error = err.Error()
		rec.EndedAt = time.Now().UTC()
		return rec, nil
	}
	if err := r.prepareTry(ctx, cur, w, rec); err != nil {
		return nil, err
	}
	l, err := launch()
	if err != nil {
		return nil, err
	}
	d := l.drive(ctx, rec)
	// The process served this case, whatever becomes of the try: a redo on
	// the same process comes after it (trap T9).
	cur.cases = append(cur.cases, w.Case)
	if d.err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if d.lost != "" {
		// A host's session dropped mid-window: nothing it measured came
		// back. The try is journaled, not final, and redone (tries).
		r.lostHost = d.lost
		rec.Error = d.err.Error()
		rec.Reasons = append(rec.Reasons, fmt.Sprintf("the session with host %s dropped during the window (%v); the window is redone", d.lost, d.err))
		rec.EndedAt = time.Now().UTC()
		return rec, nil
	}
	rec.DBAfter = r.dbStats(ctx)
	rec.EndedAt = time.Now().UTC()
	judgeTry(rec, cur, d)
	return rec, nil
}

// prepareTry readies the database and waits for a quiet host.
func (r *runner) prepareTry(ctx context.Context, cur *server, w plan.Window, rec *journal.Window) error {
	if err := r.prepareDatabase(ctx, w, rec); err != nil {
		return err
	}
	rec.DBBefore = r.dbStats(ctx)
	return r.gateWait(ctx, cur, rec)
}

// launch starts the load generator on the case and a sampler of every
// process tree, to be opened on the generator's window.
func (r *runner) launch(ctx context.Context, cur *server, w plan.Window, c workload.Case) (lr *loadRun, ws *windowSampler, probeBefore float64, err error) {
	p := r.opt.Plan.Protocol
	floor, cap := p.WarmupFor(cur.stack)
	return r.launchAt(ctx, cur, c, w.Concurrency, 0, warmupSpan{floor, cap}, p.Window)
}

// warmupSpan is a warm-up's floor and cap: fixed when max is not above
// floor, otherwise until throughput is steady (load.WarmupRule).
type warmupSpan struct{ floor, max time.Duration }

// launchAt is launch with the generator's connections, open-loop rate in
// requests per second (0: closed loop), warm-up and window given: a
// capacity probe's.
func (r *runner) launchAt(ctx context.Context, cur *server, c workload.Case, conns int, rateRPS float64, warmup warmupSpan, window time.Duration) (lr *loadRun, ws *windowSampler, probeBefore float64, err error) {
	pool := ""
	switch {
	case c.Templated:
		if pool, err = r.variantPool(cur, c); err != nil {
			return nil, nil, 0, err
		}
	case r.opt.Plan.Protocol.Spread:
		if pool, err = r.poolFile(c); err != nil {
			return nil, nil, 0, err
		}
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", cur.p.Port())
	probeBefore = r.probe()
	lr, ws, err = r.startSampled(ctx, cur, loadArgsAt(base, c, pool, conns, rateRPS, warmup, window, r.opt.Plan.Protocol.Timeout), window)
	return lr, ws, probeBefore, err
}

// startSampled starts the load generator with args and a sampler of every
// process tree (server, generator, harness, database), to be opened on the
// generator's window of the given length.
func (r *runner) startSampled(ctx context.Context, cur *server, args []string, window time.Duration) (*loadRun, *windowSampler, error) {
	lr, err := startLoad(r.opt.Stackbench, args, r.opt.Plan.Protocol.Placement.Lanes().Generator)
	if err != nil {
		return nil, nil, err
	}
	groups := []proc.Group{cur.p.Group("server"), proc.TreeGroup("generator", lr.cmd.Process.Pid), proc.SelfGroup("harness")}
	groups = append(groups, r.containerGroups()...)
	if g, ok := r.databaseGroup(ctx); ok {
		groups = append(groups, g)
	}
	groups = append(groups, r.idleGroups(cur)...)
	groups = append(groups, r.serviceGroups(ctx, cur)...)
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
func (r *runner) collect(ctx context.Context, lr *loadRun, ws *windowSampler, rec *journal.Window, probeBefore float64) driven {
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
		rec.Probe = &journal.Probe{BeforeMs: probeBefore, AfterMs: r.probe(), ReferenceMs: r.prober.ReferenceMs}
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
	rec.Load = d.res
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
func (r *runner) prepareDatabase(ctx context.Context, w plan.Window, rec *journal.Window) error {
	if r.db == nil {
		return nil
	}
	if w.Inserts {
		t0 := time.Now()
		switch {
		case r.fixture != nil:
			if err := r.db.Reset(ctx, r.fixture.Reset); err != nil {
				return fmt.Errorf("reset the database before %s: %w; fix workload.database.reset", w.Key, err)
			}
		default:
			if err := r.db.ResetOrders(ctx); err != nil {
				return fmt.Errorf("reset orders before %s: %w", w.Key, err)
			}
		}
		rec.Timings.ResetSeconds = time.Since(t0).Seconds()
	}
	t0 := time.Now()
	if err := r.db.Checkpoint(ctx); err != nil {
		return fmt.Errorf("checkpoint before %s: %w", w.Key, err)
	}
	rec.Timings.CheckpointSeconds = time.Since(t0).Seconds()
	return nil
}

// poolFile writes a case's spread requests (workload.Requests) as a request
// pool the first time it is needed; the generator sends them round-robin.
func (r *runner) poolFile(c workload.Case) (string, error) {
	if r.pools == nil {
		r.pools = map[string]string{}
	}
	if p, ok := r.pools[c.Name]; ok {
		return p, nil
	}
	dir := filepath.Join(r.opt.Dir, "requests")
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		return "", err
	}
	r.pools[c.Name] = path
	return path, nil
}

func joinReasons(rec *journal.Window) string {
	if len(rec.Reasons) == 0 {
		return "no reason"
	}
	return strings.Join(rec.Reasons, "; ")
}
