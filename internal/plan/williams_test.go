package plan

import (
	"fmt"
	"strings"
	"testing"
)

// nStacks lists n stacks, s0 … s(n−1).
func nStacks(n int) string {
	var b strings.Builder
	b.WriteString("stacks:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: s%d, dir: apps/a, start: ./s}\n", i)
	}
	return b.String()
}

// balance counts, for one case, over the rounds in [from, to], what
// immediately precedes each window of the case within its round: the
// window before it in time that belongs to the same round and case.
// pairs[x][y] counts x right before y (x == y at the turns' boundaries);
// first[x] counts x first in the case's round.
func balance(ws []Window, cas string, from, to int) (pairs map[[2]string]int, first map[string]int) {
	pairs, first = map[[2]string]int{}, map[string]int{}
	for i, w := range ws {
		if w.Case != cas || w.Round < from || w.Round > to {
			continue
		}
		if i == 0 || ws[i-1].Case != cas || ws[i-1].Round != w.Round {
			first[w.Stack]++
			continue
		}
		pairs[[2]string{ws[i-1].Stack, w.Stack}]++
	}
	return pairs, first
}

// checkBalanced fails unless, for every case, every ordered pair of
// distinct stacks is adjacent equally often over rounds [from, to], every
// stack follows itself equally often and comes first equally often.
func checkBalanced(t *testing.T, what string, ws []Window, stacks, cases []string, from, to int) {
	t.Helper()
	for _, cas := range cases {
		pairs, first := balance(ws, cas, from, to)
		distinct, self, firsts := map[int][]string{}, map[int][]string{}, map[int][]string{}
		for _, x := range stacks {
			firsts[first[x]] = append(firsts[first[x]], x)
			for _, y := range stacks {
				n := pairs[[2]string{x, y}]
				if x == y {
					self[n] = append(self[n], x)
				} else {
					distinct[n] = append(distinct[n], x+"→"+y)
				}
			}
		}
		if len(distinct) > 1 || len(self) > 1 || len(firsts) > 1 {
			t.Errorf("%s, case %s, rounds %d–%d: not balanced: pairs by count %v, self %v, first %v", what, cas, from, to, distinct, self, firsts)
		}
		if _, ok := distinct[0]; ok && len(stacks) > 1 {
			t.Errorf("%s, case %s: some pairs never adjacent: %v", what, cas, distinct)
		}
	}
}

// TestMatrixBalancedOrder: for 2 to 6 stacks, any number of cases, levels
// and repeats, within each case every ordered pair of stacks is adjacent
// (the first right before the second in the round's time order) equally
// often over each cycle of rounds, in the planned rounds and in adaptive
// rounds that continue them.
func TestMatrixBalancedOrder(t *testing.T) {
	allCases := []string{"health", "user", "order", "cpu", "echo"}
	for n := 2; n <= 6; n++ {
		c := WilliamsCycle(n)
		var stacks []string
		for i := range n {
			stacks = append(stacks, fmt.Sprintf("s%d", i))
		}
		for _, k := range []int{1, 2, 3, 5} {
			for _, shape := range []struct{ levels, repeat string }{{"[10]", "1"}, {"[10, 100]", "1"}, {"[10]", "2"}, {"[10, 100, 500]", "2"}} {
				cases := allCases[:k]
				what := fmt.Sprintf("%d stacks, %d cases, levels %s, repeat %s", n, k, shape.levels, shape.repeat)
				cfg := fmt.Sprintf("protocol:\n  concurrency: %s\n  repeat: %s\n  rounds: auto\n  min_rounds: %d\n  max_rounds: %d\n  layout: interleaved\n  cases: [%s]\n",
					shape.levels, shape.repeat, 2*c, 4*c, strings.Join(cases, ", "))
				p := resolve(t, cfg+nStacks(n), Overrides{})
				if p.Protocol.Order != OrderWilliams {
					t.Fatalf("order %q", p.Protocol.Order)
				}
				checkBalanced(t, what, p.Windows, stacks, cases, 1, c)
				checkBalanced(t, what, p.Windows, stacks, cases, c+1, 2*c)
				// Adaptive rounds of every cell continue the cycle.
				all := map[CellKey]bool{}
				for _, w := range p.Windows {
					all[CellKey{w.Stack, w.Case, w.Concurrency}] = true
				}
				for r := 2*c + 1; r <= 4*c; r++ {
					p.Windows = append(p.Windows, p.ExtraRound(r, all)...)
				}
				checkBalanced(t, what+", extra rounds", p.Windows, stacks, cases, 2*c+1, 3*c)
				checkBalanced(t, what+", extra rounds", p.Windows, stacks, cases, 2*c+2, 3*c+1) // any cycle of rounds
				checkBalanced(t, what+", extra rounds", p.Windows, stacks, cases, 3*c+1, 4*c)
			}
		}
	}
}

// TestMatrixBalancedStepSides: whatever cells an adaptive round measures,
// the two stacks of a step are each first in half the rounds of a cycle,
// and already in every two rounds that start a mirror pair; the cases of
// a round do not all take one sequence.
func TestMatrixBalancedStepSides(t *testing.T) {
	p := resolve(t, "protocol:\n  concurrency: [10]\n  rounds: 2\n  layout: interleaved\n  cases: [health, user, order]\n"+nStacks(5), Overrides{})
	c := WilliamsCycle(5)
	for r := 3; r <= c; r++ {
		// Only the step s1 → s3 of order is open.
		p.Windows = append(p.Windows, p.ExtraRound(r, map[CellKey]bool{{"s1", "order", 10}: true, {"s3", "order", 10}: true})...)
	}
	firstOf := func(from, to int) map[string]int {
		n := map[string]int{}
		for r := from; r <= to; r++ {
			for _, w := range p.Windows {
				if w.Round == r && w.Case == "order" && (w.Stack == "s1" || w.Stack == "s3") {
					n[w.Stack]++
					break
				}
			}
		}
		return n
	}
	if got := firstOf(1, c); got["s1"] != c/2 || got["s3"] != c/2 {
		t.Errorf("over a cycle of rounds, first: %v", got)
	}
	for r := 1; r < c; r += 2 {
		if got := firstOf(r, r+1); got["s1"] != 1 || got["s3"] != 1 {
			t.Errorf("rounds %d and %d, first: %v", r, r+1, got)
		}
	}
	firsts := map[string]bool{}
	for _, w := range p.Windows {
		if w.Round == 1 && w.Slot == 0 {
			firsts[w.Stack] = true
		}
	}
	if len(firsts) != 3 {
		t.Errorf("round 1's three cases start with %v, want three different stacks", firsts)
	}
}
