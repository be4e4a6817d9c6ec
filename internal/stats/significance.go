package stats

import (
	"fmt"

	"golang.org/x/perf/benchmath"
)

// DefaultAlpha is the significance level used unless the user picks another.
const DefaultAlpha = 0.05

// Significance is the result of a two-sided Mann-Whitney U test of whether
// two cells' windows come from the same distribution.
type Significance struct {
	// P is the p-value from benchmath (exact for small samples, normal
	// approximation beyond); with ties and at most 25 windows a side it is
	// computed exactly by stackbench instead (see exactTiedP). It is 1 when
	// the test could not be run (an
	// empty side, or every value equal); Warnings then says why.
	P float64
	// N1 and N2 are the window counts of the two sides.
	N1, N2 int
	// Alpha is the significance level the verdict uses.
	Alpha float64
	// MinP is the smallest p-value the test can give for N1 and N2 windows
	// (see MinP).
	MinP float64
	// Possible is MinP < Alpha: with fewer windows no outcome at all could
	// be significant, and the report must say "too few windows" instead of
	// quoting P.
	Possible bool
	// Significant is Possible && P < Alpha.
	Significant bool
	// Warnings are benchmath's caveats about the test, as text.
	Warnings []string
}

// MannWhitney runs a two-sided Mann-Whitney U test over the windows of two
// cells through benchmath's AssumeNothing. Neither slice is modified.
func MannWhitney(from, to []float64, alpha float64) Significance {
	th := benchmath.Thresholds{CompareAlpha: alpha}
	s1 := benchmath.NewSample(append([]float64(nil), from...), &th)
	s2 := benchmath.NewSample(append([]float64(nil), to...), &th)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	p := c.P
	if repairTies(from, to) {
		p = exactTiedP(from, to)
	}
	sig := Significance{
		P:     p,
		N1:    len(from),
		N2:    len(to),
		Alpha: alpha,
		MinP:  MinP(len(from), len(to)),
	}
	sig.Possible = sig.MinP < alpha
	sig.Significant = sig.Possible && sig.P < alpha
	for _, w := range c.Warnings {
		sig.Warnings = append(sig.Warnings, w.Error())
	}
	return sig
}

// Verdict is the test's outcome in words, for a report: "too few windows"
// when no outcome could reach Alpha, otherwise the p-value and whether it
// is below Alpha.
func (s Significance) Verdict() string {
	switch {
	case !s.Possible:
		return fmt.Sprintf("too few windows (%d vs %d: the smallest possible p is %.3g, not below α=%g)", s.N1, s.N2, s.MinP, s.Alpha)
	case s.Significant:
		return fmt.Sprintf("p=%.3g < α=%g: significant", s.P, s.Alpha)
	default:
		return fmt.Sprintf("p=%.3g ≥ α=%g: not significant", s.P, s.Alpha)
	}
}

// MinP returns the smallest p-value a two-sided Mann-Whitney U test can
// reach with n and m windows and no ties: the two most extreme orderings
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
