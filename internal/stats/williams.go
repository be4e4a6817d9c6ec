package stats

import "slices"

// A Williams design orders n treatments over a cycle of sequences so that
// carry-over from one to the next is balanced (Williams 1949, "Experimental
// designs balanced for the estimation of residual effects of treatments").

// WilliamsCycle is the number of sequences of the Williams design for n
// stacks: n when n is even, 2n when n is odd (1 for one stack).
func WilliamsCycle(n int) int {
	switch {
	case n <= 1:
		return 1
	case n%2 == 0:
		return n
	}
	return 2 * n
}

// WilliamsSequence is sequence s (taken mod WilliamsCycle(n)) of the
// Williams design for n items: a permutation of 0 … n−1. Over the cycle's
// sequences every item comes at every position equally often, and every
// ordered pair of distinct items (x, y) has x immediately before y equally
// often (once for n even, twice for n odd).
//
// The rows are the cyclic Latin square built on 0, 1, n−1, 2, n−2, …
// (row j adds j mod n to it) and their mirror images, in the order row 0,
// row 0 reversed, row 1, row 1 reversed, …: sequences 2j and 2j+1 are each
// other's reverse, so two consecutive sequences starting at an even index
// already put either of any two items first equally often. For n even the
// mirror of row j is row j + n/2, so the n sequences are the square's n
// rows; for n odd the square alone is not balanced and its mirror makes
// 2n sequences.
func WilliamsSequence(n, s int) []int {
	if n <= 0 {
		return nil
	}
	c := WilliamsCycle(n)
	s = ((s % c) + c) % c
	j := s / 2
	out := make([]int, n)
	for p := range n {
		// The base sequence: 0, 1, n−1, 2, n−2, …
		var b int
		switch {
		case p == 0:
			b = 0
		case p%2 == 1:
			b = (p + 1) / 2
		default:
			b = n - p/2
		}
		out[p] = (b + j) % n
	}
	if s%2 == 1 {
		slices.Reverse(out)
	}
	return out
}
