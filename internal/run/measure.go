package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
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
		pr := r.opt.Plan.Protocol
		r.out.Skipped = pr.ClosedLoopWindows(r.opt.Plan.Windows) - pr.ClosedLoopWindows(todo)
	}
	r.progress.begin(len(todo), r.opt.Plan.EstimateWindows(todo), lastRound(r.opt.Plan.Windows))
	last := lastWindowOfProcess(r.opt.Plan.Windows)
	pr := r.opt.Plan.Protocol
	var deferred []plan.Window // latency windows waiting for the round's end
	for i, w := range r.opt.Plan.Windows {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !r.done[w.Key] && pr.ClosedLoopIn(w) {
			if err := ph.measureWindow(ctx, w); err != nil {
				return err
			}
		}
		if pr.LatencyDeferred(w) {
			deferred = append(deferred, w)
		} else if err := ph.latency.measure(ctx, w); err != nil {
			return err
		}
		if last[w.Process] == i && !pr.LatencyDeferred(w) {
			ph.stopProcess(w)
		}
		if i+1 == len(r.opt.Plan.Windows) || r.opt.Plan.Windows[i+1].Round != w.Round {
			// Round 1's latency windows, now that its closed-loop windows
			// fix the rate, each on its stack's process of the round.
			for _, d := range deferred {
				if err := ph.latency.measure(ctx, d); err != nil {
					return err
				}
			}
			for _, d := range deferred {
				ph.stopProcess(d)
			}
			deferred = nil
			ph.checkPace(w.Round)
			r.showCalls()
		}
	}
	return nil
}

// stopProcess stops w's stack's live process when it is w's.
func (ph *roundsPhase) stopProcess(w plan.Window) {
	r := ph.r
	if s := r.live[w.Stack]; s != nil && s.planProcess == w.Process {
		r.stopServer(s)
		delete(r.live, w.Stack)
	}
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
	c, _ := r.opt.File.CaseOf(w.Stack, w.Case)
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

// remaining lists the windows still to measure: closed-loop windows not
// journaled, and, under closed_loop: first, the windows whose latency
// window alone is still to measure.
func (ph *roundsPhase) remaining() []plan.Window {
	r := ph.r
	var ws []plan.Window
	for _, w := range r.opt.Plan.Windows {
		if !r.done[w.Key] && (r.opt.Plan.Protocol.ClosedLoopIn(w) || !r.latencyDone[plan.LatencyKey(w)]) {
			ws = append(ws, w)
		}
	}
	return ws
}

// newServer starts a fresh process of st on the run's site.
func (r *runner) newServer(ctx context.Context, st plan.Stack, planProcess int) (*server, error) {
	return r.site.startServer(ctx, st, planProcess)
}

func (r *runner) stopServer(s *server) { r.siteParts().stopServer(s) }

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
		r.progress.redo(rec)
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

func joinReasons(rec *journal.Window) string {
	if len(rec.Reasons) == 0 {
		return "no reason"
	}
	return strings.Join(rec.Reasons, "; ")
}
