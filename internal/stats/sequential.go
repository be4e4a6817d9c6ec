package stats

// SequentialAlpha is the significance level of each look of an adaptive
// run, so that all its looks together call a false gain or loss with
// probability at most alpha (a Bonferroni split of alpha over the looks,
// an α-spending rule that needs no assumption about how the looks depend
// on each other).
//
// An adaptive run looks after every round from minRounds to maxRounds, with
// (at most) one window per cell and round, so look n compares n windows a
// side (n pairs, for Paired). A look whose smallest attainable level
// (Design.MinLevel: 2 ÷ C(2n, n) for independent samples, 2 ÷ 2ⁿ for pairs)
// is above its share cannot call anything, and so spends nothing; the share
// goes to the looks that can: alpha ÷ L, where L counts the looks from the
// first decidable one to maxRounds. With a single look
// (minRounds == maxRounds) it is alpha itself.
func SequentialAlpha(d Design, alpha float64, minRounds, maxRounds int) float64 {
	if maxRounds <= minRounds {
		return alpha
	}
	for n := minRounds; n <= maxRounds; n++ {
		share := alpha / float64(maxRounds-n+1)
		if d.MinLevel(n) <= share {
			return share
		}
	}
	return alpha / float64(maxRounds-minRounds+1)
}

// FirstDecidableRound is the first look of an adaptive run (rounds
// minRounds to maxRounds, at per-look level alpha) whose interval can be
// finite under design d; maxRounds + 1 when none can.
func FirstDecidableRound(d Design, alpha float64, minRounds, maxRounds int) int {
	for n := minRounds; n <= maxRounds; n++ {
		if d.MinLevel(n) <= alpha {
			return n
		}
	}
	return maxRounds + 1
}
