package run

import (
	"fmt"
	"math"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// An adaptive run's budget is held against the windows' measured time,
// but its looks were placed by the plan's estimate of a round. On a busy
// host (gate waits, warm-ups running to their cap) a round can take three
// times the estimate, and the budget then stops the rounds before the
// first look: nothing is called, and the user learns it at the end. After
// each round the run re-estimates from the rounds measured so far and
// says, as soon as it is known, that the next look will not be reached and
// what budget would reach it.

// paceCheck is a re-estimate after a round.
type paceCheck struct {
	// round is the last round measured; perRound the measured time of a
	// round so far (spent ÷ round), planned the plan's estimate of one.
	round    int
	perRound time.Duration
	planned  time.Duration
	// reach is the last round the budget affords at that pace.
	reach int
	// look is the next look still ahead, and budget what would reach it
	// at that pace (rounded up to a minute).
	look   int
	budget time.Duration
	// callable is true when a look at reach could still call a step: the
	// run then calls its steps there (the budget's clock moves the last
	// look to the round it stops after).
	callable bool
}

// pace re-estimates, after round, the rounds the budget affords from the
// time the windows took (spent), against the plan's looks; ok is false
// when the next look is still within reach (or there is none ahead).
// spentFirst is the share of spent of the first firstRounds rounds when
// they are unlike the later rounds (closed_loop: first: the rate rounds'
// closed-loop windows), else 0: the pace is then the later rounds', known
// from the round after them.
func pace(pr plan.Protocol, looks []int, round int, spent, spentFirst time.Duration, firstRounds int, planned time.Duration) (paceCheck, bool) {
	if !pr.Adaptive || pr.Budget <= 0 || round < 1 || spent <= 0 {
		return paceCheck{}, false
	}
	rounds := round
	if spentFirst > 0 {
		firstRounds = max(firstRounds, 1)
		if round <= firstRounds {
			return paceCheck{}, false
		}
		rounds -= firstRounds
	}
	next := 0
	for _, l := range looks {
		if l > round {
			next = l
			break
		}
	}
	if next == 0 {
		return paceCheck{}, false
	}
	per := (spent - spentFirst) / time.Duration(rounds)
	if per <= 0 {
		return paceCheck{}, false
	}
	reach := round + int((pr.Budget-spent)/per)
	if reach >= next {
		return paceCheck{}, false
	}
	need := time.Duration(math.Ceil((spent + per*time.Duration(next-round)).Minutes())) * time.Minute
	return paceCheck{round: round, perRound: per, planned: planned, reach: reach, look: next, budget: need}, true
}

// text says the check in one warning.
func (c paceCheck) text(budget time.Duration) string {
	then := "no round up to it can decide a step, so no step would be called"
	if c.callable {
		then = fmt.Sprintf("the steps will be called after round %d instead, with fewer pairs", c.reach)
	}
	return fmt.Sprintf("after round %d, a round takes %s here (the plan estimated %s): the budget of %s reaches round %d, before the look planned after round %d; %s; --budget %s (protocol: budget:) would reach round %d",
		c.round, c.perRound.Round(time.Second), c.planned.Round(time.Second), minutes(budget), c.reach, c.look, then, minutes(c.budget), c.look)
}

// minutes writes a duration of whole minutes as the flag takes it, "17m".
func minutes(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return d.String()
}

// spentThrough is the measured time of the windows of rounds 1 to round.
// An adaptive run's rounds phase walks the whole plan again, rounds
// already measured included: counting every journaled window against
// round 1 there once made a round of 31 s read 1m40s, and warned that
// the budget would end the run at round 4 of a run that reached 13.
// Latency windows count as the windows do (the plan's estimate of a
// round has both).
func spentThrough(round int, ws ...[]journal.Window) time.Duration {
	var spent time.Duration
	for _, kind := range ws {
		for _, w := range kind {
			if w.Round <= round {
				spent += w.EndedAt.Sub(w.StartedAt)
			}
		}
	}
	return spent
}

// checkPace runs pace after round from the journal and warns once per
// look that the budget will not reach (an event in the journal, so the
// report carries it too).
func (ph *roundsPhase) checkPace(round int) {
	r := ph.r
	pr := r.opt.Plan.Protocol
	if !pr.Adaptive || pr.Budget <= 0 {
		return
	}
	res, err := journal.ReadDir(r.opt.Dir)
	if err != nil {
		return // the next look reads it again and says why
	}
	spent := spentThrough(round, res.Windows, res.Latency)
	looks, _ := analysis.Looks(r.opt.Plan, stats.DefaultAlpha)
	var spentFirst time.Duration
	if pr.ClosedLoop == plan.ClosedLoopFirst {
		spentFirst = spentThrough(pr.RateRounds(), res.Windows, res.Latency)
	}
	c, ok := pace(pr, looks, round, spent, spentFirst, pr.RateRounds(), r.opt.Plan.RoundEstimate())
	if !ok || r.paceWarned[c.look] {
		return
	}
	// The looks a run ending at c.reach would have (the clock moves the
	// last one there): none when no round up to it can decide a step.
	q := *r.opt.Plan
	q.Protocol.MaxRounds, q.Protocol.BudgetRounds = max(c.reach, q.Protocol.Rounds), 0
	reachLooks, _ := analysis.Looks(&q, stats.DefaultAlpha)
	c.callable = len(reachLooks) > 0
	if r.paceWarned == nil {
		r.paceWarned = map[int]bool{}
	}
	r.paceWarned[c.look] = true
	r.event(journal.LevelWarning, "", "%s", c.text(pr.Budget))
}
