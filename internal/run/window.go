package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/workload"
)

// A window, as the protocol measures it, is N sides started at one
// instant: each side is a live server and the load stream that measures
// it. Today every window has one side. A duet window has two: two live
// servers under load at the same instant, one generator process driving
// both, each side's result and flags kept apart.
//
// A windowExecutor measures one try of a window and says what the try
// came to, as a windowOutcome: every side measured (tryOK), a redo and
// why (tryRedo: a side's server died, or the host disturbed the try
// within the gate's budget), a host whose session dropped (tryHostLost),
// or a broken harness (tryFatal). The retry loop (retryLoop, tries.go)
// works on that outcome alone: it journals the tries, restarts servers,
// reconnects hosts and keeps the budgets; it never looks at how the
// window was loaded or sampled. runWindows is the run's executor;
// tries_test.go has a fake one.
type windowExecutor interface {
	// execute measures one try of t's sides. Only a cancelled context or
	// a broken harness (the database between windows, the generator that
	// would not start) gives tryFatal; a failed request, a dead server or
	// a failed generator is data, in the sides' records.
	execute(ctx context.Context, t windowTry) windowOutcome
}

// windowTry is one try of a window, as the retry loop hands it to the
// executor.
type windowTry struct {
	// sides are the window's sides, each with its own record.
	sides []windowSide
	// judged is true when a measured try is judged for the host
	// (foreign CPU, suspension, the host's speed: hostWatch.judge) and
	// redone within the gate's budget: the windows and the latency
	// windows. A capacity or profile probe is kept as measured.
	judged bool
	// disturbed counts the window's earlier tries that were redone
	// because the host disturbed them: the gate's budget.
	disturbed int
}

// windowSide is one side of a window: the live server srv, loaded by
// load, journaled as plan window w's try number attempt.
type windowSide struct {
	w       plan.Window
	attempt int
	srv     *server
	load    loadStream
}

// loadStream is what one generator sends one server over a window.
type loadStream struct {
	c     workload.Case
	conns int
	// rateRPS is the open loop's rate in requests per second; 0 for a
	// closed loop.
	rateRPS float64
	warmup  warmupSpan
	window  time.Duration
	// marks, when set, are told of the window's course (a profile
	// window's sampling).
	marks *windowMarks
	// check, when set, judges a try that measured further, after the
	// load's own checks (judgeBehind for a latency window).
	check func(*journal.Window)
	// startAt, when set, is the instant (this machine's clock) a
	// generator here starts its warm-up, then fixed: a site sets it when
	// another host must be asked ahead for the window's instants.
	startAt time.Time
}

// windowMarks are told of a window's course: launched once its load is
// on its way (before the warm-up), opened and closed at the measured
// window's boundaries — by the sampler here (under its lock: they must
// not block), or on this machine's clock at the instants a window across
// hosts is scheduled to open and close.
type windowMarks struct {
	launched, opened, closed func()
	// serverPerf, when set, asks a window across hosts for perf's
	// profile of the server's tree, recorded on the server host by its
	// agent from the launch and kept over the measured window; it is
	// called with the profile (gzipped pprof) or why there is none
	// before the window's drive returns.
	serverPerf func(profile []byte, err error)
}

// fixedWarmup is the warm-up of a stream whose generators cannot end it
// on their own (generators on several hosts must end it at one instant):
// the stream's cap.
func (ls loadStream) fixedWarmup() time.Duration { return max(ls.warmup.floor, ls.warmup.max) }

// outcomeKind is what one try of a window came to.
type outcomeKind int

const (
	// tryOK: every side measured; each record is final as it stands
	// (its flags may say the window was kept though disturbed).
	tryOK outcomeKind = iota
	// tryRedo: the try is to be redone; each record's Reasons say why.
	// The sides in died had their server die: it is restarted first.
	tryRedo
	// tryHostLost: the session with host dropped during the try; err
	// says how. Nothing the host measured came back.
	tryHostLost
	// tryFatal: the harness broke (err); no record.
	tryFatal
)

func (k outcomeKind) String() string {
	switch k {
	case tryOK:
		return "ok"
	case tryRedo:
		return "redo"
	case tryHostLost:
		return "host lost"
	case tryFatal:
		return "fatal"
	}
	return fmt.Sprintf("outcomeKind(%d)", int(k))
}

// windowOutcome is what an executor's try came to.
type windowOutcome struct {
	kind outcomeKind
	// recs are the sides' records, in the sides' order; nil when fatal.
	recs []*journal.Window
	// died lists the sides (indices into recs) whose server died.
	died []int
	// host is the host whose session dropped (tryHostLost).
	host string
	err  error
}

// reasons joins the sides' reasons, for a log line.
func (o windowOutcome) reasons() string {
	var rs []string
	for _, rec := range o.recs {
		rs = append(rs, rec.Reasons...)
	}
	if len(rs) == 0 {
		return "no reason"
	}
	return strings.Join(rs, "; ")
}

func fatal(err error) windowOutcome { return windowOutcome{kind: tryFatal, err: err} }

// runWindows is the run's window executor: the checks before a try, the
// database and the gate, the load its site launches, and the checks
// after it.
type runWindows struct {
	r *runner
}

// execute measures a window of one side. A window of several sides
// (duet) needs one generator driving them all and is the duet executor's.
func (x *runWindows) execute(ctx context.Context, t windowTry) windowOutcome {
	if len(t.sides) != 1 {
		return fatal(fmt.Errorf("the run's executor measures windows of one side; this one has %d", len(t.sides)))
	}
	s := t.sides[0]
	rec, lost, late, err := x.try(ctx, s)
	if err != nil {
		return fatal(err)
	}
	recs := []*journal.Window{rec}
	if lost != "" {
		return windowOutcome{kind: tryHostLost, recs: recs, host: lost, err: fmt.Errorf("%s", rec.Error)}
	}
	if late {
		return windowOutcome{kind: tryRedo, recs: recs}
	}
	if s.load.check != nil && rec.Load != nil {
		s.load.check(rec)
	}
	switch {
	case rec.HasFlag(journal.FlagServerDied):
		return windowOutcome{kind: tryRedo, recs: recs, died: []int{0}}
	case t.judged && rec.Load != nil && x.r.watch.judge(rec, t.disturbed):
		return windowOutcome{kind: tryRedo, recs: recs}
	case t.judged && rec.HasFlag(journal.FlagCostWarming) && t.disturbed < maxWarmingRedos:
		rec.Reasons = append(rec.Reasons, "the window is redone on the same process, now further warmed up")
		return windowOutcome{kind: tryRedo, recs: recs}
	}
	return windowOutcome{kind: tryOK, recs: recs}
}

// try runs one try of side s: the checks before, the database and the
// gate, the generator with the sampler over its window and the host-speed
// probe around it, and the checks after. lost names the host whose
// session dropped during it ("" otherwise); the record then says so and
// holds nothing measured. late says a generator host started after the
// window's instant: the record says so, and the window is redone.
func (x *runWindows) try(ctx context.Context, s windowSide) (rec *journal.Window, lost string, late bool, err error) {
	r, cur, w := x.r, s.srv, s.w
	rec = newRecord(w, s.attempt, r.envCount)
	rec.Process = journal.ProcessInfo{PID: cur.tree.PID(), Seq: cur.seq,
		CasesBefore: append([]string{}, cur.cases...), BootSeconds: cur.tree.BootDuration().Seconds()}
	rec.ServerHost = cur.host
	r.progress.current(w, rec.Attempt)

	if err := cur.tree.Check(); err != nil {
		flagger{rec}.add(journal.FlagServerDied, "%v", err)
		rec.Error = err.Error()
		rec.EndedAt = time.Now().UTC()
		return rec, "", false, nil
	}
	if err := x.prepareTry(ctx, cur, w, rec); err != nil {
		return nil, "", false, err
	}
	l, err := r.site.launch(ctx, s, rec)
	if err != nil {
		return nil, "", false, err
	}
	d := l.drive(ctx, rec)
	// The process served this case, whatever becomes of the try: a redo on
	// the same process comes after it (trap T9).
	cur.cases = append(cur.cases, w.Case)
	if d.err != nil && ctx.Err() != nil {
		return nil, "", false, ctx.Err()
	}
	if d.lost != "" {
		// A host's session dropped mid-window: nothing it measured came
		// back. The try is journaled, not final, and redone (tries).
		rec.Error = d.err.Error()
		rec.Reasons = append(rec.Reasons, fmt.Sprintf("the session with host %s dropped during the window (%v); the window is redone", d.lost, d.err))
		rec.EndedAt = time.Now().UTC()
		return rec, d.lost, false, nil
	}
	rec.DBAfter = r.dbStats(ctx, w.Stack)
	rec.EndedAt = time.Now().UTC()
	judgeTry(rec, cur, d)
	if d.late != "" {
		rec.Reasons = append(rec.Reasons, d.late+"; the window is redone")
	}
	return rec, "", d.late != "", nil
}

// measureOne measures one try of w on cur with ls through ex, unjudged
// for the host: a capacity or a profile probe. The record is nil only
// with an error.
func measureOne(ctx context.Context, ex windowExecutor, cur *server, w plan.Window, ls loadStream) (*journal.Window, error) {
	o := ex.execute(ctx, windowTry{sides: []windowSide{{w: w, attempt: 1, srv: cur, load: ls}}})
	if o.kind == tryFatal {
		return nil, o.err
	}
	return o.recs[0], nil
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

// driven is what one try's generator and sampler gave.
type driven struct {
	res   *load.Result
	stats *proc.WindowStats // nil when the window never opened (or was sampled on other hosts)
	err   error             // the generator gave no result: data, not a harness error
	// lost names the host whose session dropped during the window (err
	// says how); "" otherwise.
	lost string
	// late says why the window is redone because a generator host was
	// ready only after the window's start (lateStart); "" otherwise.
	late string
	// parts are the generator hosts' own results, in their order, when
	// the load came from other hosts; res is their merge.
	parts []journal.GeneratorPart
	// partResults are the same parts' whole results, of the hosts in
	// hosts, for the per-generator judgement.
	partResults []*load.Result
	hosts       []string
	// database is the database's usage as its own host sampled it (roles:
	// database:); nil when it was sampled here, in stats, or not at all.
	database *hostUsage
	// serverHost is the server host's sample of the server's tree, when
	// the server runs there and the load came from here (stats then
	// holds the generator's and the harness's); its busy and foreign CPU
	// are the record's, as for a window loaded from generator hosts.
	serverHost *agent.Sample
	// generators is the generator hosts' own account of their CPU, when
	// the load came from them.
	generators *journal.Usage
}

// judgeTry records what a try measured and raises its flags: a server that
// died, a generator that failed, then the load's and the database's checks.
func judgeTry(rec *journal.Window, cur *server, d driven) {
	if d.stats != nil {
		fillUsage(rec, *d.stats)
	}
	if d.database != nil {
		rec.DatabaseHost, rec.Database = d.database.host, d.database.use
	}
	if d.serverHost != nil {
		serverHostUsage(rec, *d.serverHost)
	}
	if d.generators != nil {
		rec.Generator = *d.generators
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
		return journal.Usage{CPUSeconds: g.CPUSeconds, Cores: g.Cores, RSSMeanBytes: g.RSSMeanBytes, RSSPeakBytes: g.RSSPeakBytes, Processes: g.Processes,
			FirstHalfCPUSeconds: g.FirstHalfCPUSeconds, SecondHalfCPUSeconds: g.SecondHalfCPUSeconds}
	}
	rec.Server = use("server")
	rec.Database = use("database")
	rec.Generator = use("generator")
	rec.Harness = use("harness")
	if g, ok := s.Group(databaseOwnGroup); ok {
		u := use(databaseOwnGroup)
		u.Processes = g.Processes
		rec.DatabaseOwn = &u
	}
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
	rec.ForeignProcessCores, rec.ForeignTickCores = s.ForeignProcessCores, s.ForeignTickCores
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

// prepareDatabase resets the stack's copy before a window that inserts
// (trap T3): with its own database's reset when it brings one, else the
// workload's fixture's, else the orders table; and takes a checkpoint
// before every window (trap T4).
func (x *runWindows) prepareDatabase(ctx context.Context, w plan.Window, rec *journal.Window) error {
	r := x.r
	_, db := r.dbOf(w.Stack)
	if db == nil {
		return nil
	}
	if w.Inserts {
		t0 := time.Now()
		st, _ := r.opt.File.Stack(w.Stack)
		switch {
		case st.Database != nil:
			if err := db.Reset(ctx, st.Database.Reset); err != nil {
				return fmt.Errorf("reset the database before %s: %w; fix database.reset of stack %s", w.Key, err, w.Stack)
			}
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
