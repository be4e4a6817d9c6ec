package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// adaptPhase is the adaptive rounds (rounds: auto), after the planned ones.
type adaptPhase struct {
	r      *runner
	rounds *roundsPhase
}

// run carries out rounds: auto once the planned windows are measured:
// it looks at every step's throughput call, as the report makes it from
// the journal, and while some step is undecided it journals and measures
// one more round of only the cells those steps need, until every step is
// decided, the plan's last round is reached (MaxRounds, or fewer when the
// Budget affords fewer by the plan's estimate: Protocol.LastRound), or the
// next round would take the windows past the Budget. Each decision is a journal.Round record, so
// a resumed run goes on under the same rule (docs/statistics.md).
func (ph *adaptPhase) run(ctx context.Context) error {
	r := ph.r
	pr := r.opt.Plan.Protocol
	if !pr.Adaptive || r.adaptiveStopped {
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		look, err := ph.look()
		if err != nil {
			return err
		}
		last := lastRound(r.opt.Plan.Windows)
		next := r.opt.Plan.ExtraRound(last+1, look.need)
		spent := look.windowsTime
		stop, clock := "", false
		switch {
		case len(look.undecided) == 0:
			stop = "every layer step is decided (or invalid for a reason more windows cannot mend); first → last is called from their windows and not measured on for"
		case last >= pr.MaxRounds:
			stop = fmt.Sprintf("max_rounds (%d) reached with %d step(s) undecided", pr.MaxRounds, len(look.undecided))
		case last >= pr.LastRound():
			stop = fmt.Sprintf("round %d, the last the budget of %s affords by the plan's estimate (α was split over the looks up to it), reached with %d step(s) undecided",
				pr.LastRound(), pr.Budget, len(look.undecided))
		case len(next) == 0:
			// The open steps' cells are not in the plan (cannot happen with
			// a journal this plan wrote); never loop on an empty round.
			stop = fmt.Sprintf("no window of the plan can decide the %d open step(s)", len(look.undecided))
		case spent+r.opt.Plan.EstimateWindows(next) > pr.Budget:
			clock = true
			stop = fmt.Sprintf("the budget: the windows took %s, and round %d (%d windows, about %s) would pass %s; %d step(s) undecided",
				spent.Round(time.Second), last+1, len(next), r.opt.Plan.EstimateWindows(next).Round(time.Second), pr.Budget, len(look.undecided))
		}
		rec := journal.Round{Time: time.Now().UTC(), Alpha: look.alpha, Undecided: look.undecided}
		if stop != "" {
			rec.Round, rec.Stop, rec.ClockStop = last, stop, clock
			if err := r.jw.Append(journal.KindRound, rec); err != nil {
				return err
			}
			r.adaptiveStopped = true
			r.progress.logf("adaptive rounds: stopped after round %d: %s", last, stop)
			return nil
		}
		rec.Round, rec.Windows = last+1, next
		if err := r.jw.Append(journal.KindRound, rec); err != nil {
			return err
		}
		r.extend(next)
		r.progress.logf("adaptive round %d: %d step(s) still open (%s); measuring %d windows of %d cells",
			last+1, len(look.undecided), abbreviate(look.undecided, 3), len(next), len(look.need))
		if err := ph.rounds.run(ctx); err != nil {
			return err
		}
	}
}

// extend appends an extra round's windows to the plan the run measures.
func (r *runner) extend(ws []plan.Window) {
	r.opt.Plan.Windows = append(r.opt.Plan.Windows, ws...)
	r.out.Planned += r.opt.Plan.Protocol.ClosedLoopWindows(ws)
}

// lookResult is what one look at the journal found.
type lookResult struct {
	// undecided names the steps that more windows could decide (open);
	// need holds both cells of each.
	undecided []string
	need      map[plan.CellKey]bool
	alpha     float64
	// windowsTime is the wall time of every window journaled so far,
	// latency windows and redone tries included: what the budget is held
	// against (as the plan's estimate of a round counts both kinds).
	windowsTime time.Duration
}

// look reads the journal and decides, as the report does, which steps are
// still open (throughput, or p50 and p99 with latency windows: an extra
// round measures both windows of a cell). Only the layer steps count (each stack against the stack
// it changes one layer of), not first → last.
func (ph *adaptPhase) look() (lookResult, error) {
	r := ph.r
	res, err := journal.ReadDir(r.opt.Dir)
	if err != nil {
		return lookResult{}, fmt.Errorf("adaptive rounds: read the journal: %w", err)
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		return lookResult{}, fmt.Errorf("adaptive rounds: %w", err)
	}
	out := lookResult{need: map[plan.CellKey]bool{}, alpha: m.Header.Alpha}
	for _, ws := range [][]journal.Window{res.Windows, res.Latency} {
		for _, w := range ws {
			out.windowsTime += w.EndedAt.Sub(w.StartedAt)
		}
	}
	for _, s := range m.Steps {
		if s.Kind != analysis.StepAdjacent || !(m.ThroughputOpen(s) || m.LatencyOpen(s)) {
			continue
		}
		out.undecided = append(out.undecided, fmt.Sprintf("%s → %s %s c=%d", s.From, s.To, s.Case, s.Concurrency))
		out.need[plan.CellKey{Stack: s.From, Case: s.Case, Concurrency: s.Concurrency}] = true
		out.need[plan.CellKey{Stack: s.To, Case: s.Case, Concurrency: s.Concurrency}] = true
	}
	return out, nil
}

// lastRound is the highest round among the windows.
func lastRound(ws []plan.Window) int {
	last := 0
	for _, w := range ws {
		last = max(last, w.Round)
	}
	return last
}

// abbreviate joins the first n items and says how many more there are.
func abbreviate(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(slices.Clip(items[:n]), "; ") + fmt.Sprintf("; and %d more", len(items)-n)
}
