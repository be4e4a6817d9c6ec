package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/profiling/perfrec"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

// ProfilesDir is where, in a results directory, the profiling phase
// writes its pprof files: profiles/<stack>/<case>-c<concurrency>.<kind>.pb.gz.
const ProfilesDir = "profiles"

// profilingPhase is the profile windows, after the capacity searches.
type profilingPhase struct{ r *runner }

// run carries out protocol profiling: on: after the measured
// rounds (and any capacity searches), one extra window per cell with
// sampling on — the server's Go profiles when the stack says pprof:, perf
// over the server's process tree and PostgreSQL's processes where perf
// works, pg_stat_statements for a case that uses the database — each
// journaled as a journal.Profiling before the next. The calls never see
// these windows. Each stack gets a fresh process (one per case with
// fresh: case) started with its runtime's perf support (profilingStack).
// A resumed run skips the cells whose profile window is journaled.
func (ph *profilingPhase) run(ctx context.Context) error {
	r := ph.r
	if !r.opt.Plan.Protocol.Profiling {
		return nil
	}
	res, err := journal.ReadDir(r.opt.Dir)
	if err != nil {
		return fmt.Errorf("profiling: read the journal: %w", err)
	}
	left := profilingLeft(r.opt.Plan, res)
	if len(left) == 0 {
		return nil
	}
	win := r.opt.Plan.Protocol.ProfilingWindow()
	r.progress.logf("profiling: %d windows of %s with sampling on (not counted in the calls)", len(left), win)
	t := ph.newProfilerTools(ctx)
	defer t.close()
	host, _ := r.site.serverHost()
	for _, st := range r.opt.Plan.Stacks {
		var cur *server
		for _, c := range r.opt.Plan.Cases {
			if cur != nil && r.opt.Plan.Protocol.Fresh == plan.FreshCase {
				ph.stopProfiled(cur)
				cur = nil
			}
			for _, conc := range r.opt.Plan.Protocol.Concurrency {
				key := journal.ProfilingKey(st.Name, c.Name, conc)
				if !left[key] {
					continue
				}
				if cur == nil {
					pst := profilingStack(st)
					if host != "" {
						// What a runtime writes for perf (V8's /tmp/perf-<pid>.map)
						// would stay on the server host.
						pst = st
					}
					s, err := r.newServer(ctx, pst, -1)
					if err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						rec := journal.Profiling{Key: key, Stack: st.Name, Case: c.Name, Concurrency: conc, Time: time.Now().UTC(),
							Problems: []string{fmt.Sprintf("the stack did not start: %v", err)}}
						if err := r.jw.Append(journal.KindProfiling, rec); err != nil {
							return err
						}
						continue
					}
					cur = s
				}
				var err error
				sc, _ := r.opt.File.CaseOf(st.Name, c.Name) // at the stack's own path
				if cur, err = ph.profileWindow(ctx, cur, t, key, sc, conc, win); err != nil {
					ph.stopProfiled(cur)
					return err
				}
			}
		}
		ph.stopProfiled(cur)
	}
	return nil
}

// profilingLeft lists the profile windows of the plan not yet journaled.
func profilingLeft(p *plan.Plan, res *journal.Results) map[string]bool {
	left := map[string]bool{}
	if !p.Protocol.Profiling {
		return left
	}
	for _, st := range p.Stacks {
		for _, c := range p.Cases {
			for _, conc := range p.Protocol.Concurrency {
				key := journal.ProfilingKey(st.Name, c.Name, conc)
				if _, done := res.ProfilingWindow(key); !done {
					left[key] = true
				}
			}
		}
	}
	return left
}

// profilingStack is st with its runtime's perf support switched on: Node
// writes /tmp/perf-<pid>.map for its JIT frames with --perf-basic-prof
// (added to NODE_OPTIONS), CPython 3.12 and later names its frames for
// perf with PYTHONPERFSUPPORT=1 (-X perf). Only the profiling phase's
// processes get it: it costs the runtime some work, and the measured
// windows run without it.
func profilingStack(st plan.Stack) plan.Stack {
	add := map[string]string{}
	switch st.Runtime {
	case plan.RuntimeNode:
		opts := strings.TrimSpace(st.Env["NODE_OPTIONS"] + " --perf-basic-prof")
		if v, ok := os.LookupEnv("NODE_OPTIONS"); ok && st.Env["NODE_OPTIONS"] == "" {
			opts = strings.TrimSpace(v + " --perf-basic-prof")
		}
		add["NODE_OPTIONS"] = opts
	case plan.RuntimePython:
		add["PYTHONPERFSUPPORT"] = "1"
	}
	if len(add) == 0 {
		return st
	}
	env := map[string]string{}
	for k, v := range st.Env {
		env[k] = v
	}
	order := append([]string(nil), st.EnvOrder...)
	for k, v := range add {
		if _, had := env[k]; !had {
			order = append(order, k)
		}
		env[k] = v
	}
	st.Env, st.EnvOrder = env, order
	return st
}

// profileWindow measures one profile window on cur and journals it; it
// returns the server to go on with (nil when it died). Only a cancelled
// context or a broken journal is an error.
func (ph *profilingPhase) profileWindow(ctx context.Context, cur *server, t *profilerTools, key string, c workload.Case, conc int, win time.Duration) (*server, error) {
	r := ph.r
	w := plan.Window{Key: key, Stack: cur.stack.Name, Case: c.Name, Concurrency: conc, Inserts: c.Inserts}
	_, addr := r.site.serverHost()
	sess := t.session(cur, addr, c, ph.databaseRoot(ctx), win, filepath.Join(r.opt.Dir, ProfilesDir, cur.stack.Name), fmt.Sprintf("%s-c%d", c.Name, conc))
	dbURL, _ := r.dbOf(cur.stack.Name)
	sess.database = databaseName(dbURL)
	floor, cap := r.opt.Plan.Protocol.WarmupFor(cur.stack)
	rec, err := measureOne(ctx, r.exec, cur, w, loadStream{c: c, conns: conc, warmup: warmupSpan{floor, cap}, window: win,
		marks: ph.marks(sess, t, max(floor, cap)+win+30*time.Second)})
	if err != nil {
		sess.wait()
		return cur, err
	}
	out := journal.Profiling{Key: key, Stack: cur.stack.Name, Case: c.Name, Concurrency: conc, Time: time.Now().UTC(), Window: *rec}
	if rec.Load != nil {
		out.Requests = rec.Load.Successes
	}
	out.Profiles, out.Statements, out.Problems = sess.finish(ctx, r.opt.Dir)
	if rec.Error != "" {
		out.Problems = append(out.Problems, "the window: "+rec.Error)
	}
	if err := r.jw.Append(journal.KindProfiling, out); err != nil {
		return cur, err
	}
	ph.logProfileWindow(out)
	if rec.HasFlag(journal.FlagServerDied) {
		ph.stopProfiled(cur)
		return nil, nil
	}
	cur.cases = append(cur.cases, c.Name)
	return cur, nil
}

// marks are the profile window's hooks into the window: the sampling
// opened and closed with it, perf started with the load here (bounded by
// limit), or recorded on the server host by its agent.
func (ph *profilingPhase) marks(sess *profileSession, t *profilerTools, limit time.Duration) *windowMarks {
	m := &windowMarks{opened: sess.start, closed: sess.stop, launched: func() { sess.startPerf(limit) }}
	if t.remotePerf {
		m.serverPerf = sess.remotePerfDone
	}
	return m
}

// logProfileWindow says what one profile window gave.
func (ph *profilingPhase) logProfileWindow(p journal.Profiling) {
	r := ph.r
	var parts []string
	for _, f := range p.Profiles {
		parts = append(parts, fmt.Sprintf("%s %d samples", f.Kind, f.Samples))
	}
	if len(p.Statements) > 0 {
		parts = append(parts, fmt.Sprintf("%d statements", len(p.Statements)))
	}
	rps := 0.0
	if p.Window.Load != nil {
		rps = p.Window.Load.ThroughputRPS
	}
	msg := fmt.Sprintf("profiling %s %s c%d: %.1f req/s; %s", p.Stack, p.Case, p.Concurrency, rps, strings.Join(parts, ", "))
	if len(parts) == 0 {
		msg += "no profile"
	}
	r.progress.logf("%s", msg)
	for _, pr := range p.Problems {
		r.event(journal.LevelWarning, p.Stack, "profiling %s %s c%d: %s", p.Stack, p.Case, p.Concurrency, pr)
	}
}

// newProfilerTools finds what the phase can sample with, and says once
// what it cannot.
func (ph *profilingPhase) newProfilerTools(ctx context.Context) *profilerTools {
	r := ph.r
	t := &profilerTools{}
	for _, s := range r.opt.Plan.Stacks {
		if !s.Wire.TLS || s.Pprof == "" {
			continue
		}
		files, err := stack.TLSFiles(logsDir(r.opt.Dir))
		if err == nil {
			t.caPEM, err = os.ReadFile(files.CAFile)
		}
		if err != nil {
			r.event(journal.LevelWarning, "", "profiling: the run's certificate authority: %v; pprof: over TLS cannot be read", err)
		}
		break
	}
	if host, _ := r.site.serverHost(); host != "" {
		// The server host's agent records the server with perf in each
		// window; the database's processes, on their host or here, are
		// not recorded.
		t.remotePerf = true
		r.event(journal.LevelInfo, "", "profiling: the servers run on host %s: its agent records them with perf, and the stacks' pprof: endpoints are read from here at that host's address; the database's processes are not recorded with perf", host)
	} else if scope, err := perfrec.Check(ctx, r.opt.Dir); err != nil {
		r.event(journal.LevelWarning, "", "profiling: perf cannot sample here (%v); the profiles come from the stacks' pprof: endpoints only", err)
	} else {
		t.perf, t.perfScope = true, scope
	}
	if r.dbURL != "" {
		db, err := pgfix.Open(ctx, r.dbURL)
		if err == nil {
			err = db.ResetStatements(ctx)
			if err != nil {
				db.Close()
			}
		}
		if err != nil {
			r.event(journal.LevelWarning, "", "profiling: no statement counts: %v", err)
		} else {
			t.db = db
		}
	}
	return t
}

// databaseRoot is the PostgreSQL process tree's root pid, 0 without one.
func (ph *profilingPhase) databaseRoot(ctx context.Context) int {
	r := ph.r
	if r.database != nil && r.database.Cluster != nil {
		return r.database.Cluster.PostmasterPID()
	}
	if r.db == nil || r.dbs.host() != "" {
		// On its own host its processes are not this machine's (the
		// backends' pids it gives are that host's).
		return 0
	}
	pids, err := r.db.ServerPIDs(ctx)
	if err != nil || len(pids) == 0 {
		return 0
	}
	return pids[0]
}

// stopProfiled stops a profiling phase's server and removes what its
// runtime wrote for perf: V8's /tmp/perf-<pid>.map (and CPython's), read
// by perf script right after each window, and the isolate-…-<pid>-v8.log
// that V8 writes into the working directory with --perf-basic-prof.
func (ph *profilingPhase) stopProfiled(s *server) {
	r := ph.r
	if s == nil {
		return
	}
	if s.host != "" {
		r.stopServer(s) // started without its runtime's perf support
		return
	}
	pids := proc.TreePIDs(s.tree.PID())
	r.stopServer(s)
	for _, pid := range pids {
		os.Remove(fmt.Sprintf("/tmp/perf-%d.map", pid)) // where V8 and perf put it, whatever TMPDIR says
		logs, _ := filepath.Glob(filepath.Join(s.stack.Dir, fmt.Sprintf("isolate-*-%d-v8.log", pid)))
		for _, l := range logs {
			os.Remove(l)
		}
	}
}
