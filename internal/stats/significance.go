package stats

// DefaultAlpha is one minus the confidence of a step's interval unless the
// user picks another.
const DefaultAlpha = 0.05

// MinP returns the smallest p-value a two-sided Mann-Whitney U test can
// reach with n and m windows and no ties — so the smallest 1 − coverage a
// Hodges–Lehmann interval can have (see intervalRank): the two most extreme orderings
// (every window of one side below every window of the other, and the
// reverse) out of the C(n+m, n) equally likely ones, so 2 ÷ C(n+m, n),
// capped at 1. With ties the smallest p is larger still. It is 1 when
// either side is empty.
func MinP(n, m int) float64 {
	if n < 1 || m < 1 {
		return 1
	}
	k := min(n, m)
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n+m-k+i) / float64(i)
	}
	return min(1, 2/c)
}
