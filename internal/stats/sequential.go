package stats

// Looks is the schedule of an adaptive run's looks and the significance
// level of each, so that all its looks together call a false gain or loss
// with probability at most alpha: an α-spending rule that splits alpha
// over the looks in unequal shares (Bonferroni over the looks, which needs
// no assumption about how they depend on each other).
//
// The run measures rounds minRounds … lastRound, at most one window per
// cell and round, so a look after round n compares n windows a side (n
// pairs, for Paired). A look is useful only when its smallest attainable
// level (Design.MinLevel: 2 ÷ C(2n, n) for independent samples, 2 ÷ 2ⁿ for
// pairs) is within its share. The last look, where most steps are decided,
// keeps most of alpha (FinalShare, 4 fifths); the looks before it share the
// rest equally, and stop only what is plain early — a big effect, or a
// `same` with a narrow interval — so that the windows of its cells go to the
// steps still open. They come at the first round F that can decide at their
// share, then at 2F, 4F … while within three quarters of lastRound (a look
// just before the last could stop little), and the last look at lastRound.
// Of the schedules with c = 2, 3, … looks, the first whose looks fit in c
// is taken. One look, at lastRound at alpha, when the first look even at
// alpha would come past half of lastRound (it could save little), or when
// no earlier look is useful; with minRounds ≥ lastRound there is one look,
// at lastRound, at alpha (none if it cannot decide). When no round up to
// lastRound can decide anything, rounds is nil and levels holds alpha ÷
// the rounds from minRounds to lastRound (nothing can be called at it
// anyway). levels[i] is the level of look rounds[i].
func Looks(d Design, alpha float64, minRounds, lastRound int) (rounds []int, levels []float64) {
	return LooksFor(d, alpha, 1, minRounds, lastRound)
}

// FinalShare is the share of alpha an adaptive run's last look spends when
// there are looks before it (Looks).
const FinalShare = 0.8

// LooksFor is Looks for a run whose false calls are controlled over calls
// step-metrics at once (FamilyRun): a look is useful only when a single
// real effect among them could be selected there, that is when the
// smallest attainable level is within the look's share ÷ calls (the first
// threshold of Benjamini–Hochberg). With calls = 1 it is Looks.
func LooksFor(d Design, alpha float64, calls, minRounds, lastRound int) (rounds []int, levels []float64) {
	return LooksLagged(d, alpha, calls, minRounds, lastRound, 0)
}

// LooksLagged is LooksFor for calls whose windows start lag rounds late
// (latency windows at a share of round 1's throughput start in round 2):
// after round n they have n − lag windows a side, or pairs.
func LooksLagged(d Design, alpha float64, calls, minRounds, lastRound, lag int) (rounds []int, levels []float64) {
	calls = max(1, calls)
	minLevel := func(n int) float64 {
		if n-lag < 1 {
			return 1
		}
		return d.MinLevel(n - lag)
	}
	firstAt := func(share float64) int {
		n := minRounds
		for n <= lastRound && minLevel(n) > share/float64(calls) {
			n++
		}
		return n
	}
	one := []int{lastRound}
	switch {
	case minLevel(lastRound) > alpha/float64(calls) && lastRound <= minRounds:
		return nil, []float64{alpha}
	case minLevel(lastRound) > alpha/float64(calls):
		return nil, []float64{alpha / float64(lastRound-minRounds+1)}
	case lastRound <= minRounds:
		return one, []float64{alpha}
	}
	if first := firstAt(alpha); 2*first > lastRound {
		// Even at the whole of alpha the first look would come past half
		// the rounds: it could save little, and would take a share of
		// every later look's α. One look at the last round decides more.
		return one, []float64{alpha}
	}
	final := FinalShare * alpha
	if minLevel(lastRound) > final/float64(calls) {
		return one, []float64{alpha}
	}
	for c := 2; c <= lastRound-minRounds+1; c++ {
		share := (alpha - final) / float64(c-1)
		first := firstAt(share)
		if 4*first > 3*lastRound {
			break // no look before the last is useful at this share or any smaller
		}
		var sched []int
		for n := first; 4*n <= 3*lastRound; n *= 2 {
			sched = append(sched, n)
		}
		if len(sched)+1 > c {
			continue
		}
		levels := make([]float64, 0, len(sched)+1)
		for range sched {
			levels = append(levels, (alpha-final)/float64(len(sched)))
		}
		return append(sched, lastRound), append(levels, final)
	}
	return one, []float64{alpha}
}

// LooksLaggedEqual is the schedule of runs planned before α was spent
// mostly at the last look (plan.Protocol.Spending empty): looks at the
// first round F that can decide at their share, 2F, 4F … and lastRound,
// each at an equal share of alpha; one look at lastRound when the first
// would come past half of it. Kept so that their journals are re-read at
// the levels they ran at.
func LooksLaggedEqual(d Design, alpha float64, calls, minRounds, lastRound, lag int) (rounds []int, levels []float64) {
	rounds, perLook := looksEqual(d, alpha, calls, minRounds, lastRound, lag)
	for range max(1, len(rounds)) {
		levels = append(levels, perLook)
	}
	return rounds, levels
}

func looksEqual(d Design, alpha float64, calls, minRounds, lastRound, lag int) (rounds []int, perLook float64) {
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

// SequentialAlpha is the level of an adaptive run's last look (Looks).
func SequentialAlpha(d Design, alpha float64, minRounds, lastRound int) float64 {
	_, levels := Looks(d, alpha, minRounds, lastRound)
	return levels[len(levels)-1]
}

// LookLevel is the level of the look after round, from a schedule and its
// levels (Looks); for a round that is not a look, the level of the last
// look before it, or of the first look when none came before.
func LookLevel(rounds []int, levels []float64, round int) float64 {
	if len(levels) == 0 {
		return 0
	}
	at := levels[0]
	for i, n := range rounds {
		if n <= round && i < len(levels) {
			at = levels[i]
		}
	}
	return at
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
