package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Design is how a step's two sides are compared.
type Design string

const (
	// Independent compares the two sides as independent samples: the
	// two-sample Hodges–Lehmann shift and its Mann–Whitney interval
	// (HodgesLehmann).
	Independent Design = "independent"
	// Paired compares the two sides round by round: each round in which
	// both sides have a counted window gives one log-ratio, and the shift
	// is the one-sample Hodges–Lehmann estimate of those log-ratios with
	// its Wilcoxon signed-rank interval (PairedShift). A drift of the host
	// that lasts longer than the distance between the two windows of a
	// round lands on both and cancels in the ratio.
	Paired Design = "paired"
)

// MinLevel is the smallest 1 − coverage an interval of the design can
// have with n windows a side (n pairs, for Paired): below it no interval
// is finite. Independent: 2 ÷ C(2n, n); Paired: 2 ÷ 2ⁿ, the two most
// extreme of the 2ⁿ equally likely sign patterns.
func (d Design) MinLevel(n int) float64 {
	if d == Paired {
		if n < 1 {
			return 1
		}
		return min(1, math.Ldexp(1, 1-n))
	}
	return MinP(n, n)
}

// PairedShift returns the Hodges–Lehmann estimate of the relative shift
// from from[i] to to[i] over the pairs i, with its distribution-free
// confidence interval at 1 − alpha.
//
// Each pair gives d = log(to ÷ from); the estimate is the median of the
// n(n+1)/2 Walsh averages (d_i + d_j)/2, i ≤ j, and the interval runs
// between two of their order statistics chosen from the exact null
// distribution of the Wilcoxon signed-rank statistic (Hollander & Wolfe,
// ch. 3), which assumes the log-ratios are independent and symmetric about
// the shift. Both slices must have the same, non-zero length and strictly
// positive values. N1 and N2 of the result are both the number of pairs.
func PairedShift(from, to []float64, alpha float64) (Shift, error) {
	if len(from) != len(to) {
		return Shift{}, fmt.Errorf("paired shift: %d values on one side and %d on the other", len(from), len(to))
	}
	if len(from) == 0 {
		return Shift{}, errors.New("paired shift: no pairs")
	}
	if !(alpha > 0 && alpha < 1) {
		return Shift{}, fmt.Errorf("paired shift: alpha %g is not in (0, 1)", alpha)
	}
	d := make([]float64, len(from))
	for i := range from {
		for _, v := range []float64{from[i], to[i]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Shift{}, fmt.Errorf("paired shift: %w", errNonFinite)
			}
			if v <= 0 {
				return Shift{}, fmt.Errorf("paired shift: %w", ErrNotPositive)
			}
		}
		d[i] = math.Log(to[i]) - math.Log(from[i])
	}
	n := len(d)
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	slices.Sort(walsh)
	s := Shift{N1: n, N2: n, Pairs: n, Estimate: math.Expm1(middle(walsh)), Lo: -1, Hi: math.Inf(1)}
	s.P = signedRankPValue(n, notAbove(walsh), notBelow(walsh))
	k, coverage := signedRankRank(n, alpha)
	if k < 1 {
		s.Confidence = 1
		return s, nil
	}
	s.Lo, s.Hi = math.Expm1(walsh[k-1]), math.Expm1(walsh[len(walsh)-k])
	s.Bounded, s.Confidence = true, coverage
	return s, nil
}

// signedRankRank returns the 1-based rank k of the paired interval's lower
// end among the n(n+1)/2 sorted Walsh averages (the upper end is rank
// n(n+1)/2 + 1 − k) and its coverage, 1 − 2·P(T ≤ k − 1), with T the
// signed-rank statistic under the null. k is the largest rank whose
// coverage is at least 1 − alpha; 0 when none is (2 ÷ 2ⁿ > alpha). Exact up
// to exactSidesMax pairs, the normal approximation beyond.
func signedRankRank(n int, alpha float64) (k int, coverage float64) {
	if n <= exactSidesMax {
		cdf := signedRankCDF(n)
		for k < len(cdf) && 2*cdf[k] <= alpha {
			k++
		}
		if k == 0 {
			return 0, 1
		}
		return k, 1 - 2*cdf[k-1]
	}
	mean := float64(n*(n+1)) / 4
	sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
	z := normalQuantile(1 - alpha/2)
	k = int(math.Floor(mean - z*sd + 0.5))
	if k < 1 {
		return 0, 1
	}
	return k, 1 - 2*normalCDF((float64(k)-0.5-mean)/sd)
}

// signedRankPValue is the two-sided p-value of a paired shift whose
// n(n+1)/2 sorted Walsh averages have le of them ≤ 0 and ge ≥ 0: the least
// alpha at which signedRankRank's interval excludes 0 (see uPValue).
func signedRankPValue(n, le, ge int) float64 {
	c := min(le, ge)
	if n <= exactSidesMax {
		cdf := signedRankCDF(n)
		return min(1, 2*cdf[min(c, len(cdf)-1)])
	}
	mean := float64(n*(n+1)) / 4
	sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
	return min(1, 2*normalCDF((float64(c)+0.5-mean)/sd))
}

// signedRankCDF returns P(T ≤ t) for t = 0 … n(n+1)/2, where T is the sum
// of the ranks of the positive differences among n with no ties or zeros,
// under the null: each rank i is in the sum with probability ½,
// independently, so the distribution is the product of (½ + ½ q^i). It is
// built one rank at a time, in probabilities (every term stays in [0, 1]).
func signedRankCDF(n int) []float64 {
	size := n*(n+1)/2 + 1
	p := make([]float64, size)
	p[0] = 1
	top := 0
	for i := 1; i <= n; i++ {
		top += i
		for t := top; t >= 0; t-- {
			v := p[t] / 2
			if t >= i {
				v += p[t-i] / 2
			}
			p[t] = v
		}
	}
	cdf := make([]float64, size)
	acc := 0.0
	for t := range p {
		acc += p[t]
		cdf[t] = min(acc, 1)
	}
	return cdf
}

// Pair matches two sides' windows by round: for each round in which both
// have a value (the first value of a round, if a side has several), in
// increasing round order. Values without a round (Rounds shorter than
// Windows) are left out.
func Pair(from, to Side) (x, y []float64, rounds []int) {
	byRound := func(s Side) map[int]float64 {
		m := map[int]float64{}
		for i, v := range s.Windows {
			if i >= len(s.Rounds) {
				break
			}
			if _, ok := m[s.Rounds[i]]; !ok {
				m[s.Rounds[i]] = v
			}
		}
		return m
	}
	a, b := byRound(from), byRound(to)
	for r := range a {
		if _, ok := b[r]; ok {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		x, y = append(x, a[r]), append(y, b[r])
	}
	return x, y, rounds
}
