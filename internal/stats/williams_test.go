package stats

import (
	"slices"
	"testing"
)

// TestWilliamsSequence: each cycle's sequences are permutations, every
// item sits at every position equally often, every ordered pair of
// distinct items is adjacent equally often, and sequences 2j and 2j+1 are
// mirror images.
func TestWilliamsSequence(t *testing.T) {
	for n := 1; n <= 9; n++ {
		c := WilliamsCycle(n)
		if want := map[bool]int{true: n, false: 2 * n}[n%2 == 0]; n > 1 && c != want {
			t.Errorf("n %d: cycle %d, want %d", n, c, want)
		}
		pos := map[[2]int]int{}
		adj := map[[2]int]int{}
		for s := range c {
			seq := WilliamsSequence(n, s)
			sorted := slices.Sorted(slices.Values(seq))
			for i, v := range sorted {
				if v != i {
					t.Fatalf("n %d sequence %d: %v is not a permutation", n, s, seq)
				}
			}
			for p, v := range seq {
				pos[[2]int{v, p}]++
				if p > 0 {
					adj[[2]int{seq[p-1], v}]++
				}
			}
			if s%2 == 1 {
				prev := slices.Clone(WilliamsSequence(n, s-1))
				slices.Reverse(prev)
				if !slices.Equal(prev, seq) {
					t.Errorf("n %d: sequence %d %v is not the mirror of %d", n, s, seq, s-1)
				}
			}
			if !slices.Equal(seq, WilliamsSequence(n, s+c)) || !slices.Equal(seq, WilliamsSequence(n, s-c)) {
				t.Errorf("n %d: sequence %d is not periodic in %d", n, s, c)
			}
		}
		for x := range n {
			for y := range n {
				if got := pos[[2]int{x, y}]; got != c/n {
					t.Errorf("n %d: item %d at position %d %d times, want %d", n, x, y, got, c/n)
				}
				if x == y {
					continue
				}
				if got, want := adj[[2]int{x, y}], c/n; got != want {
					t.Errorf("n %d: %d right before %d %d times in a cycle, want %d", n, x, y, got, want)
				}
			}
		}
	}
}
