package plan

import "github.com/stackbench/stackbench/internal/stats"

// Window orders: how the stacks of a round are ordered. The journal's plan
// records the order, so a report can tell which one laid a run out.
const (
	// OrderRotation is the order of journals written before Order was
	// recorded (their protocol has no order): round r rotated to start at
	// stack (r−1) mod n, reversed on every other turn. From three stacks
	// on it is not balanced (with A B C, A comes right before B in two
	// rounds of three, for ever).
	OrderRotation = ""
	// OrderWilliams is a balanced (Williams) order: see stats.WilliamsSequence
	// and layRound.
	OrderWilliams = "williams"
)

// caseOffset is where case k (from 0, in the plan's case order) starts in
// the Williams cycle, so that the cases of one round do not all take the
// same sequence: the even indexes 0, 2, 4 … first, then the odd ones. An
// even offset keeps each mirror pair of sequences in consecutive rounds
// (rounds 1 and 2, 3 and 4 …).
func caseOffset(k, cycle int) int {
	if cycle <= 1 {
		return 0
	}
	return (2*k)%cycle + (2*k/cycle)%2
}

// WilliamsCycle is stats.WilliamsCycle: the rounds over which a plan's
// order is balanced.
func WilliamsCycle(n int) int { return stats.WilliamsCycle(n) }

// sequenceOf is the Williams sequence index of round r (from 1) for case k:
// (r − 1 + offset(k)) mod cycle. The grouped layout uses case 0's.
func sequenceOf(r, k, n int) int {
	c := stats.WilliamsCycle(n)
	return (r - 1 + caseOffset(k, c)) % c
}
