package run

import (
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// TestPaceSaysTheLookWillNotBeReached: rounds of 78 s against the plan's
// 24 s (a busy host) under a 7-minute budget reach round 5, not the look
// after round 13; the check says so after round 2, with the budget that
// would reach it, and says nothing while the look is within reach.
func TestPaceSaysTheLookWillNotBeReached(t *testing.T) {
	pr := plan.Protocol{Adaptive: true, Budget: 7 * time.Minute}
	c, ok := pace(pr, []int{13}, 2, 156*time.Second, 0, 0, 24*time.Second)
	if !ok {
		t.Fatal("no warning at 78 s a round")
	}
	if c.reach != 5 || c.look != 13 || c.budget != 17*time.Minute {
		t.Errorf("check %+v, want round 5 reached, look 13, budget 17m", c)
	}
	want := "after round 2, a round takes 1m18s here (the plan estimated 24s): the budget of 7m reaches round 5, before the look planned after round 13; no round up to it can decide a step, so no step would be called; --budget 17m (protocol: budget:) would reach round 13"
	if got := c.text(pr.Budget); got != want {
		t.Errorf("text\n%s\nwant\n%s", got, want)
	}
	// Where round 5 can still decide a step, the clock moves the last look
	// there, and the warning says so rather than that nothing is called.
	c.callable = true
	want = "after round 2, a round takes 1m18s here (the plan estimated 24s): the budget of 7m reaches round 5, before the look planned after round 13; the steps will be called after round 5 instead, with fewer pairs; --budget 17m (protocol: budget:) would reach round 13"
	if got := c.text(pr.Budget); got != want {
		t.Errorf("text\n%s\nwant\n%s", got, want)
	}
	for _, q := range []struct {
		name  string
		pr    plan.Protocol
		looks []int
		round int
		spent time.Duration
	}{
		{"on pace", pr, []int{13}, 2, 60 * time.Second},
		{"the look is behind", pr, []int{2}, 3, 300 * time.Second},
		{"fixed rounds", plan.Protocol{Budget: 7 * time.Minute}, []int{13}, 2, 156 * time.Second},
		{"no round yet", pr, []int{13}, 0, 0},
	} {
		if c, ok := pace(q.pr, q.looks, q.round, q.spent, 0, 0, 24*time.Second); ok {
			t.Errorf("%s: warned %+v", q.name, c)
		}
	}
	if !strings.Contains(c.text(pr.Budget), "--budget 17m") {
		t.Error("the warning does not name the flag")
	}
}

// TestPaceCountsOnlyTheRoundsItIsAfter: after round 1 of an adaptive
// run's second pass, five rounds of 25 s are journaled; the pace of round
// 1 is 25 s, not 125 s.
func TestPaceCountsOnlyTheRoundsItIsAfter(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 0, 7, 52, 0, time.UTC)
	var ws []journal.Window
	for round := 1; round <= 5; round++ {
		for range 10 {
			w := journal.Window{Round: round, StartedAt: t0}
			w.EndedAt = t0.Add(2500 * time.Millisecond)
			t0 = w.EndedAt
			ws = append(ws, w)
		}
	}
	if got := spentThrough(1, ws); got != 25*time.Second {
		t.Errorf("spent through round 1: %s, want 25s", got)
	}
	if got := spentThrough(5, ws); got != 125*time.Second {
		t.Errorf("spent through round 5: %s, want 2m5s", got)
	}
	pr := plan.Protocol{Adaptive: true, Budget: 7 * time.Minute}
	if c, ok := pace(pr, []int{13}, 1, spentThrough(1, ws), 0, 0, 31*time.Second); ok {
		t.Errorf("round 1 of the second pass warned: %s", c.text(pr.Budget))
	}
}

// TestPaceAfterAClosedLoopRound: under closed_loop: first, round 1 (60 s,
// with its closed-loop windows) is unlike the later rounds (25 s each):
// after round 1 there is no pace yet; after round 3 (110 s spent) a
// 7-minute budget reaches round 3 + 310 s / 25 s = round 15, past the
// look after round 13; at 78 s a later round it reaches round 5 and says
// so, with the budget that would reach round 13.
func TestPaceAfterAClosedLoopRound(t *testing.T) {
	pr := plan.Protocol{Adaptive: true, Budget: 7 * time.Minute, ClosedLoop: plan.ClosedLoopFirst}
	if c, ok := pace(pr, []int{13}, 1, 60*time.Second, 60*time.Second, 1, 25*time.Second); ok {
		t.Errorf("round 1 warned: %+v", c)
	}
	if c, ok := pace(pr, []int{13}, 3, 110*time.Second, 60*time.Second, 1, 25*time.Second); ok {
		t.Errorf("on pace after round 3, warned: %+v", c)
	}
	c, ok := pace(pr, []int{13}, 3, 216*time.Second, 60*time.Second, 1, 25*time.Second)
	if !ok {
		t.Fatal("no warning at 78 s a later round")
	}
	// 216 s + 10 × 78 s = 996 s: 17 minutes.
	if c.reach != 5 || c.budget != 17*time.Minute || c.perRound != 78*time.Second {
		t.Errorf("check %+v, want round 5 reached at 1m18s a round, budget 17m", c)
	}
	// Two rate rounds (120 s with their closed-loop windows): no pace after
	// round 2; after round 4 at 78 s a later round (276 s spent) the budget
	// reaches round 4 + 144 s / 78 s = round 5, and 276 s + 9 × 78 s is
	// 978 s: 17 minutes.
	if c, ok := pace(pr, []int{13}, 2, 120*time.Second, 120*time.Second, 2, 25*time.Second); ok {
		t.Errorf("round 2 of two rate rounds warned: %+v", c)
	}
	c, ok = pace(pr, []int{13}, 4, 276*time.Second, 120*time.Second, 2, 25*time.Second)
	if !ok || c.reach != 5 || c.perRound != 78*time.Second || c.budget != 17*time.Minute {
		t.Errorf("two rate rounds: check %+v, %v; want round 5 at 1m18s a round, budget 17m", c, ok)
	}
}
