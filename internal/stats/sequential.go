package stats

// Looks is the schedule of an adaptive run's looks and the significance
// level of each, so that all its looks together call a false gain or loss
// with probability at most alpha (a Bonferroni split of alpha over the
// looks, an α-spending rule that needs no assumption about how the looks
// depend on each other).
//
// The run measures rounds minRounds … lastRound, at most one window per
// cell and round, so a look after round n compares n windows a side (n
// pairs, for Paired). A look is useful only when its smallest attainable
// level (Design.MinLevel: 2 ÷ C(2n, n) for independent samples, 2 ÷ 2ⁿ for
// pairs) is within its share. Every look costs a share, so the run looks
// seldom: at the first round F that can decide at the level, then at 2F,
// 4F … while under lastRound, and at lastRound — a big effect stops
// early, and the last look, where most steps are decided, keeps a large
// share. Of the schedules with c = 1, 2, … looks, the first whose looks
// fit in c is taken, each look at alpha ÷ c — unless its first look would
// come past half of lastRound: then one look at lastRound, at alpha. With minRounds ≥ lastRound
// there is one look, at lastRound, at alpha (none if it cannot decide). When no round up to lastRound
// can decide anything, rounds is nil and perLook is alpha ÷ the rounds
// from minRounds to lastRound (nothing can be called at it anyway).
func Looks(d Design, alpha float64, minRounds, lastRound int) (rounds []int, perLook float64) {
	return LooksFor(d, alpha, 1, minRounds, lastRound)
}

// LooksFor is Looks for a run whose false calls are controlled over calls
// step-metrics at once (FamilyRun): a look is useful only when a single
// real effect among them could be selected there, that is when the
// smallest attainable level is within the look's share ÷ calls (the first
// threshold of Benjamini–Hochberg). With calls = 1 it is Looks.
func LooksFor(d Design, alpha float64, calls, minRounds, lastRound int) (rounds []int, perLook float64) {
	return LooksLagged(d, alpha, calls, minRounds, lastRound, 0)
}

// LooksLagged is LooksFor for calls whose windows start lag rounds late
// (latency windows at a share of round 1's throughput start in round 2):
// after round n they have n − lag windows a side, or pairs.
func LooksLagged(d Design, alpha float64, calls, minRounds, lastRound, lag int) (rounds []int, perLook float64) {
	calls = max(1, calls)
	minLevel := func(n int) float64 {
		if n-lag < 1 {
			return 1
		}
		return d.MinLevel(n - lag)
	}
	if lastRound <= minRounds {
		if minLevel(lastRound) > alpha/float64(calls) {
			return nil, alpha
		}
		return []int{lastRound}, alpha
	}
	for c := 1; c <= lastRound-minRounds+1; c++ {
		share := alpha / float64(c)
		first := minRounds
		for first <= lastRound && minLevel(first) > share/float64(calls) {
			first++
		}
		if first > lastRound {
			continue
		}
		if 2*first > lastRound && minLevel(lastRound) <= alpha/float64(calls) {
			// The first look would come past half the rounds: it could
			// save little, and would halve every look's α. One look at
			// the last round, at alpha, decides more.
			return []int{lastRound}, alpha
		}
		var sched []int
		for n := first; n < lastRound; n *= 2 {
			sched = append(sched, n)
		}
		sched = append(sched, lastRound)
		if len(sched) <= c {
			return sched, alpha / float64(len(sched))
		}
	}
	return nil, alpha / float64(lastRound-minRounds+1)
}

// SequentialAlpha is the level of each look of an adaptive run (Looks).
func SequentialAlpha(d Design, alpha float64, minRounds, lastRound int) float64 {
	_, a := Looks(d, alpha, minRounds, lastRound)
	return a
}

// LastLook is the latest look of the schedule at or before round, 0 when
// there is none yet.
func LastLook(looks []int, round int) int {
	last := 0
	for _, n := range looks {
		if n <= round {
			last = max(last, n)
		}
	}
	return last
}
