package stats

import "sort"

// tiesExactLimit is the largest window count per side for which go-moremath
// computes an exact p-value when there are ties; beyond it, it uses the
// normal approximation, which is symmetric and needs no repair.
const tiesExactLimit = 25

// repairTies reports whether MannWhitney computes the p-value itself
// (exactTiedP): two non-empty sides, at most tiesExactLimit windows each,
// with ties, and not all equal (then no test is possible and benchmath
// says so).
func repairTies(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 || len(a) > tiesExactLimit || len(b) > tiesExactLimit {
		return false
	}
	return hasTies(a, b) && !allEqual(a, b)
}

func allEqual(a, b []float64) bool {
	for _, s := range [][]float64{a, b} {
		for _, v := range s {
			if v != a[0] {
				return false
			}
		}
	}
	return true
}

// hasTies reports whether any value occurs twice among both samples.
func hasTies(a, b []float64) bool {
	seen := make(map[float64]bool, len(a)+len(b))
	for _, s := range [][]float64{a, b} {
		for _, v := range s {
			if seen[v] {
				return true
			}
			seen[v] = true
		}
	}
	return false
}

// exactTiedP is the exact two-sided p-value of the Mann-Whitney U test
// with ties: 2·min(P(R ≤ r), P(R ≥ r)), capped at 1, where r is the sum of
// a's midranks and R the sum of the midranks of a random len(a)-subset of
// the pooled windows, every subset equally likely under the null
// hypothesis.
//
// go-moremath's exact distribution with ties gives wrong p-values when the
// two sides have different sizes (for [1 4] against [0 0 1 1 0 4] it says
// 0.21; enumeration gives 0.5), so stackbench counts subsets itself. The
// count is a dynamic programme over the pooled windows: ways[k][s] is the
// number of k-subsets of the windows seen so far whose doubled midranks
// (integers) sum to s.
func exactTiedP(a, b []float64) float64 {
	doubled := doubledMidranks(a, b)
	n := len(a)
	observed := 0
	for _, r := range doubled[:n] {
		observed += r
	}
	maxSum := 0
	for _, r := range doubled {
		maxSum += r
	}
	ways := make([][]float64, n+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for _, r := range doubled {
		for k := n; k >= 1; k-- {
			for s := maxSum; s >= r; s-- {
				ways[k][s] += ways[k-1][s-r]
			}
		}
	}
	var total, atMost, atLeast float64
	for s, w := range ways[n] {
		total += w
		if s <= observed {
			atMost += w
		}
		if s >= observed {
			atLeast += w
		}
	}
	return min(1, 2*min(atMost, atLeast)/total)
}

// doubledMidranks returns twice the midrank of every window of a then b,
// in that order, ranking the pooled windows ascending (equal values share
// the mean of their ranks).
func doubledMidranks(a, b []float64) []int {
	pooled := append(append([]float64(nil), a...), b...)
	order := make([]int, len(pooled))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool { return pooled[order[x]] < pooled[order[y]] })
	out := make([]int, len(pooled))
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && pooled[order[j]] == pooled[order[i]] {
			j++
		}
		// Ranks i+1 … j (1-based) share the midrank (i+1+j)/2.
		for _, idx := range order[i:j] {
			out[idx] = i + 1 + j
		}
		i = j
	}
	return out
}
