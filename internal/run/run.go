// Package run is the protocol: from a resolved plan to a journal of
// measured windows. One invocation (Run) is a runner — the run state: the
// plan, the journal, the outcome, the progress shown — handed to one phase
// after another, each in its own file:
//
//   - hostsPhase (hosts.go): the sessions with the hosts of roles:, first,
//     so that an unreachable host stops the run in seconds;
//   - databasePhase (hosts.go, database.go): the database fixture, here or
//     on the database host (databaseSite, database_site.go);
//   - buildPhase (stacks.go): the stacks checked out and built;
//   - environmentPhase (environment.go): the machine, the versions, the
//     contention gate's baseline and the host-speed probe (hostWatch,
//     contention.go);
//   - parityPhase and bootPhase (parity_boot.go): the contract checks
//     before any load, then the cold starts;
//   - roundsPhase (measure.go): every window of the plan in its order —
//     rounds, stacks in a balanced order, fresh processes — each followed
//     by its latency window when the plan has one (latencyPhase,
//     latency.go);
//   - adaptPhase (adaptive.go): with rounds: auto, more rounds of only the
//     cells the undecided steps need;
//   - capacityPhase (capacity.go) and profilingPhase (profiling.go): the
//     capacity searches at an SLO and the profile windows;
//   - finishPhase (finish.go): results.json from the journal.
//
// Every window is measured the same way. The retry loop (retryLoop,
// tries.go) hands each try to the window executor (windowExecutor,
// window.go): it prepares the database (reset, checkpoint), waits for a
// quiet host, launches each side's load stream at one instant through the
// run's site, samples every process tree over the measured window (timed
// from the generator's boundaries, a few milliseconds late; see
// windowSampler), and judges the result; its typed outcome (ok, redo,
// host lost, fatal) decides whether the window is redone. The site
// (site.go) is where the servers run and the load comes from: this
// machine (localSite) or the hosts of roles: (hostsSite, remote_window.go;
// either side may stay here, and what a window loaded here samples on
// other hosts is far_samples.go); no phase knows which it has. Each try is journaled before the next
// starts.
//
// A run resumes from its journal: windows whose final record is there are
// never measured again, and the plan must not have changed.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/remote"
)

// Options configure a run.
type Options struct {
	File *plan.File
	Plan *plan.Plan
	// Dir is the results directory. With Resume, it holds the journal of
	// the run to continue.
	Dir    string
	Resume bool
	// SkipParity runs without the parity gate; reports say so first.
	SkipParity bool
	// Args are the arguments that shape the plan, journaled so that a
	// resume needs nothing else.
	Args []string
	// Stackbench is the path of the stackbench binary that runs `load`.
	Stackbench string
	// Log receives progress; Live draws a status line (a terminal).
	Log  io.Writer
	Live bool
	// Width is the terminal's width in columns (0: unknown).
	Width int
	// ToolVersion is recorded in the journal.
	ToolVersion string
	// Remote says how to reach the hosts of the file's roles: (known_hosts,
	// ssh-agent); unused when every role runs here.
	Remote remote.Options
	// PoolDir is where request pools are written; "" is a private
	// temporary directory removed when the run ends (a pool holds the
	// requests as sent, secrets included).
	PoolDir string
}

// Outcome is what a run did.
type Outcome struct {
	Dir string
	// Planned is the number of closed-loop windows the plan measures
	// (under closed_loop: first, round 1's; plan.Protocol.ClosedLoopIn);
	// Measured were measured by this invocation; Skipped were already
	// journaled (resume).
	Planned, Measured, Skipped int
	// Latency is the number of latency windows this invocation measured
	// (their flags are in Flagged too).
	Latency int
	// FailedCells lists the windows that could not be measured.
	FailedCells []string
	// Flagged counts final windows per flag.
	Flagged map[journal.Flag]int
	Elapsed time.Duration
}

// ErrParity is returned when the parity gate failed: no load was sent.
var ErrParity = errors.New("parity gate failed")

// Run carries out the protocol. When ctx is cancelled it stops after the
// current step, tears down the servers and the database, and returns the
// outcome so far with ctx's error; every window journaled before stays.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	return runWith(ctx, o, testHooks{})
}

// testHooks are what a test of the package injects into a run.
type testHooks struct {
	// loaded is hostsSite.loaded.
	loaded func(key string, attempt int, fl *fleet)
}

// runWith is Run with a test's hooks.
func runWith(ctx context.Context, o Options, hooks testHooks) (*Outcome, error) {
	start := time.Now()
	if o.Log == nil {
		o.Log = io.Discard
	}
	if err := os.MkdirAll(o.Dir, privateDirMode); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	// One made by an older version, resumed, becomes private too.
	if err := os.Chmod(o.Dir, privateDirMode); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	release, err := lockResults(o.Dir)
	if err != nil {
		return nil, err
	}
	defer release()
	r := &runner{opt: o, serving: serving{poolRoot: poolRoot{configured: o.PoolDir, results: o.Dir}, seq: map[string]int{}}, resumeState: resumeState{latencyDone: map[string]bool{}, latencyRates: map[string]journal.LatencyRate{}}, out: &Outcome{Dir: o.Dir, Planned: o.Plan.Protocol.ClosedLoopWindows(o.Plan.Windows), Flagged: map[journal.Flag]int{}}}
	r.progress = newProgress(o.Log, o.Live, o.Width)
	r.exec, r.site, r.dbs, r.watch, r.hooks = &runWindows{r: r}, newLocalSite(r.siteParts()), hereDatabase{r.siteParts()}, &hostWatch{r: r}, hooks
	r.pools = &requestPools{r: r}
	if o.Live {
		// The terminal shows a compact status; the full lines go here.
		log, err := openRunLog(o.Dir)
		if err != nil {
			return nil, err
		}
		defer log.Close()
		r.progress.toLog(log, filepath.Join(o.Dir, LogFile))
	}
	defer r.progress.close()
	err = r.run(ctx)
	r.out.Elapsed = time.Since(start)
	return r.out, err
}

func (r *runner) run(ctx context.Context) error {
	if err := r.openJournal(); err != nil {
		return err
	}
	if err := fileutil.MkdirIn(r.opt.Dir, filepath.Base(logsDir(r.opt.Dir)), privateDirMode); err != nil {
		return err
	}
	defer r.jw.Close()
	defer r.teardown()

	if r.opt.Resume && len(r.done) == len(r.opt.Plan.Windows) && (!r.opt.Plan.Protocol.Adaptive || r.adaptiveStopped) && r.capacityLeft == 0 && r.profilingLeft == 0 && latencyLeft(r.opt.Plan, r.latencyDone) == 0 {
		r.out.Skipped = len(r.done)
		r.progress.logf("the run is complete: all %d windows are journaled; nothing to measure", len(r.done))
		return r.suitesThenFinish(ctx)
	}
	// The hosts first: one that is unreachable stops the run in seconds,
	// before anything is built.
	hosts := &hostsPhase{r}
	if err := hosts.open(ctx); err != nil {
		return err
	}
	defer hosts.close()
	// The stacks are built before their databases: a stack's own
	// migrate: command (npx knex migrate:latest, alembic upgrade head)
	// needs the dependencies its build installs, and a git: stack's
	// migrations are those of its commit's worktree, made by the build
	// phase.
	if err := (&buildPhase{r}).run(ctx); err != nil {
		return err
	}
	if err := (&databasePhase{r}).run(ctx); err != nil {
		return err
	}
	if err := (&environmentPhase{r}).run(ctx); err != nil {
		return err
	}
	// Parity runs on every invocation, resumes included: the stacks were
	// just rebuilt, and what is measured must be what was checked.
	if err := (&parityPhase{r}).run(ctx); err != nil {
		return err
	}
	if !r.bootDone {
		if err := (&bootPhase{r}).run(ctx); err != nil {
			return err
		}
	}
	rounds := &roundsPhase{r: r}
	rounds.latency = &latencyPhase{r: r, rounds: rounds}
	if err := rounds.run(ctx); err != nil {
		return err
	}
	if err := (&adaptPhase{r: r, rounds: rounds}).run(ctx); err != nil {
		return err
	}
	if err := (&capacityPhase{r}).run(ctx); err != nil {
		return err
	}
	if err := (&profilingPhase{r}).run(ctx); err != nil {
		return err
	}
	return r.suitesThenFinish(ctx)
}

// logsDir is where stack and build logs go.
func logsDir(results string) string { return filepath.Join(results, "logs") }

// event journals an event and shows it.
func (r *runner) event(level journal.Level, stack, format string, a ...any) {
	ev := journal.Event{Time: time.Now().UTC(), Level: level, Stack: stack, Msg: fmt.Sprintf(format, a...)}
	if r.jw != nil {
		r.jw.Append(journal.KindEvent, ev)
	}
	r.progress.logf("%s%s", levelPrefix(level), ev.Msg)
}

func levelPrefix(level journal.Level) string {
	if level == journal.LevelWarning {
		return "warning: "
	}
	return ""
}
