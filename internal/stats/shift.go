package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Shift is the Hodges–Lehmann estimate of the relative shift from one
// sample ("from") to another ("to"), with its distribution-free confidence
// interval.
//
// The shift is estimated on the log scale, so that it is a ratio: every
// pair (x from "from", y from "to") gives log(y ÷ x); the estimate is the
// median of those n·m pairwise log-ratios, and the interval runs between
// two of their order statistics chosen from the exact null distribution of
// the Mann–Whitney U statistic (Hollander & Wolfe, ch. 4). Reported back on
// the relative scale: +0.05 is 5 % more.
type Shift struct {
	// Estimate is exp(median log-ratio) − 1.
	Estimate float64
	// Lo and Hi bound the interval, on the same relative scale. When
	// Bounded is false there are too few windows for any finite interval
	// at the requested level: Lo is −1 and Hi is +Inf.
	Lo, Hi  float64
	Bounded bool
	// Confidence is the interval's actual coverage, at least 1 − alpha
	// (the order statistics make it a step function of the sample sizes).
	Confidence float64
	// N1 and N2 are the two samples' sizes.
	N1, N2 int
	// Pairs is the number of pairs of a paired shift (PairedShift), 0 for
	// independent samples.
	Pairs int
	// P is the two-sided p-value of "no shift", exact from the same null
	// distribution as the interval and dual to it: the interval at level
	// 1 − alpha excludes 0 exactly when P ≤ alpha (PValueDual). Ties at
	// zero count against rejecting, so P is conservative with ties.
	P float64
}

// ErrNotPositive is returned by HodgesLehmann for a value that is not
// strictly positive: a ratio needs both sides above zero.
var ErrNotPositive = errors.New("a value is not positive, so no ratio can be formed")

// HodgesLehmann returns the relative shift from "from" to "to" and its
// confidence interval at 1 − alpha. Both samples must be non-empty and
// strictly positive. Neither slice is modified.
func HodgesLehmann(from, to []float64, alpha float64) (Shift, error) {
	if len(from) == 0 || len(to) == 0 {
		return Shift{}, errors.New("hodges-lehmann: a side has no windows")
	}
	if !(alpha > 0 && alpha < 1) {
		return Shift{}, fmt.Errorf("hodges-lehmann: alpha %g is not in (0, 1)", alpha)
	}
	for _, v := range slices.Concat(from, to) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Shift{}, fmt.Errorf("hodges-lehmann: %w", errNonFinite)
		}
		if v <= 0 {
			return Shift{}, fmt.Errorf("hodges-lehmann: %w", ErrNotPositive)
		}
	}
	n, m := len(from), len(to)
	d := make([]float64, 0, n*m)
	for _, x := range from {
		lx := math.Log(x)
		for _, y := range to {
			d = append(d, math.Log(y)-lx)
		}
	}
	slices.Sort(d)
	s := Shift{N1: n, N2: m, Estimate: math.Expm1(middle(d)), Lo: -1, Hi: math.Inf(1)}
	s.P = uPValue(n, m, notAbove(d), notBelow(d))
	k, coverage := intervalRank(n, m, alpha)
	if k < 1 {
		s.Confidence = 1
		return s, nil
	}
	s.Lo, s.Hi = math.Expm1(d[k-1]), math.Expm1(d[len(d)-k])
	s.Bounded, s.Confidence = true, coverage
	return s, nil
}

var errNonFinite = errors.New("a value is not finite")

// middle is the usual median of sorted values: the mean of the two middle
// ones for an even count. (The Hodges–Lehmann estimator is defined so; it
// is not a window's figure, unlike Summary.Median.)
func middle(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// exactSidesMax is the largest sample size (per side) for which the U
// distribution is computed exactly; beyond it the normal approximation is
// used, which is accurate to well under 0.001 in the tail there.
const exactSidesMax = 100

// intervalRank returns the 1-based rank k of the interval's lower end
// among the n·m sorted pairwise differences (the upper end is rank
// n·m + 1 − k) and the interval's coverage, 1 − 2·P(U ≤ k − 1). k is the
// largest rank whose coverage is at least 1 − alpha; 0 when even the
// widest finite interval (k = 1, from the smallest to the largest
// difference) covers less, that is when 2 ÷ C(n+m, n) > alpha.
func intervalRank(n, m int, alpha float64) (k int, coverage float64) {
	if n <= exactSidesMax && m <= exactSidesMax {
		cdf := uCDF(n, m)
		for k < len(cdf) && 2*cdf[k] <= alpha {
			k++
		}
		// cdf[k-1] = P(U ≤ k−1) is the last one within alpha.
		if k == 0 {
			return 0, 1
		}
		return k, 1 - 2*cdf[k-1]
	}
	mn := float64(n * m)
	sd := math.Sqrt(mn * float64(n+m+1) / 12)
	z := normalQuantile(1 - alpha/2)
	// P(U ≤ k−1) ≈ Φ((k − 1 + 0.5 − mn/2) ÷ sd) ≤ alpha/2.
	k = int(math.Floor(mn/2 - z*sd + 0.5))
	if k < 1 {
		return 0, 1
	}
	p := normalCDF((float64(k) - 0.5 - mn/2) / sd)
	return k, 1 - 2*p
}

// uCDF returns P(U ≤ u) for u = 0 … n·m under the null hypothesis, where
// U is the Mann–Whitney statistic of samples of sizes n and m with no ties.
// The counts of U are the coefficients of the Gaussian binomial
// [n+m choose n]_q = Π_{i=1..n} (1 − q^(m+i)) ÷ (1 − q^i); each partial
// product is itself a Gaussian binomial, so its coefficients stay
// non-negative and the float arithmetic stays well conditioned.
func uCDF(n, m int) []float64 {
	if n > m {
		n, m = m, n
	}
	size := n*m + 1
	c := make([]float64, size)
	c[0] = 1
	deg := 0
	for i := 1; i <= n; i++ {
		// Multiply by (1 − q^(m+i)).
		a := m + i
		newDeg := min(deg+a, size-1)
		for u := newDeg; u >= a; u-- {
			c[u] -= c[u-a]
		}
		// Divide by (1 − q^i): c'[u] = c[u] + c'[u−i].
		for u := i; u <= newDeg; u++ {
			c[u] += c[u-i]
		}
		// The quotient has degree i·m: what lies above is float dust.
		deg = i * m
		for u := deg + 1; u <= newDeg; u++ {
			c[u] = 0
		}
	}
	// Round away float dust: the counts are integers.
	total := 0.0
	for u := range c {
		c[u] = math.Round(c[u])
		total += c[u]
	}
	cdf := make([]float64, size)
	acc := 0.0
	for u := range c {
		acc += c[u]
		cdf[u] = acc / total
	}
	return cdf
}

// uPValue is the two-sided p-value of a shift whose n·m sorted
// differences have le of them ≤ 0 and ge of them ≥ 0: the least alpha at
// which intervalRank's interval excludes 0. The interval's lower end, rank
// k, is above 0 exactly when le < k, and rank k has level 2·P(U ≤ k − 1);
// so the least level that lifts it above 0 is 2·P(U ≤ le), and likewise
// 2·P(U ≤ ge) for the upper end below 0.
func uPValue(n, m, le, ge int) float64 {
	c := min(le, ge)
	if n <= exactSidesMax && m <= exactSidesMax {
		cdf := uCDF(n, m)
		return min(1, 2*cdf[min(c, len(cdf)-1)])
	}
	mn := float64(n * m)
	sd := math.Sqrt(mn * float64(n+m+1) / 12)
	return min(1, 2*normalCDF((float64(c)+0.5-mn/2)/sd))
}

// notAbove counts the sorted values ≤ 0; notBelow those ≥ 0.
func notAbove(sorted []float64) int {
	i, _ := slices.BinarySearch(sorted, math.Nextafter(0, 1))
	return i
}

func notBelow(sorted []float64) int {
	i, _ := slices.BinarySearch(sorted, 0)
	return len(sorted) - i
}

// normalCDF is Φ, the standard normal distribution function.
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normalQuantile is Φ⁻¹, for p in (0, 1).
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }
