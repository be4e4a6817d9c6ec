package stats

import (
	"math"
	"slices"
	"testing"
)

// binomialCoverage is P(lo ≤ B < hi) for B ~ Binomial(n, ½): the
// probability that the population median lies between the lo-th and hi-th
// order statistics (1-based).
func binomialCoverage(n, lo, hi int) float64 {
	p := 0.0
	for k := lo; k < hi; k++ {
		c := 1.0
		for i := 1; i <= k; i++ {
			c = c * float64(n-k+i) / float64(i)
		}
		p += c / math.Pow(2, float64(n))
	}
	return p
}

func TestMedianConfidence(t *testing.T) {
	values := []float64{9, 3, 7, 1, 5, 10, 2, 8, 4, 6}
	before := slices.Clone(values)
	ci, err := MedianConfidence(values, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !ci.Defined || ci.Center != 5.5 || !(ci.Lo <= ci.Center && ci.Center <= ci.Hi) {
		t.Fatalf("CI of 1..10 = %+v, want a defined interval around 5.5", ci)
	}
	// The bounds are order statistics; their actual coverage, computed from
	// the binomial distribution, must be what is reported and ≥ 95 %.
	lo, hi := int(ci.Lo), int(ci.Hi)
	if float64(lo) != ci.Lo || float64(hi) != ci.Hi {
		t.Fatalf("bounds %v, %v are not sample values", ci.Lo, ci.Hi)
	}
	if cov := binomialCoverage(10, lo, hi); math.Abs(cov-ci.Confidence) > 1e-9 || cov < 0.95 {
		t.Errorf("interval [x(%d), x(%d)] covers %v, reported %v", lo, hi, cov, ci.Confidence)
	}
	if !slices.Equal(values, before) {
		t.Errorf("MedianConfidence modified its input")
	}

	few, err := MedianConfidence([]float64{1, 2}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if few.Defined || len(few.Warnings) == 0 {
		t.Errorf("two windows: %+v, want no finite interval and a warning", few)
	}
	// At 95 %, 6 windows are the fewest with a finite interval: (x₁, x₆)
	// covers 1 − 2/2⁶ = 96.9 %, while 5 windows reach only 1 − 2/2⁵ = 93.75 %.
	five, _ := MedianConfidence([]float64{1, 2, 3, 4, 5}, 0.95)
	six, _ := MedianConfidence([]float64{1, 2, 3, 4, 5, 6}, 0.95)
	if five.Defined || !six.Defined || six.Lo != 1 || six.Hi != 6 || math.Abs(six.Confidence-(1-2.0/64)) > 1e-12 {
		t.Errorf("5 windows: %+v; 6 windows: %+v; want undefined, then [1, 6] at 96.9 %%", five, six)
	}
	if _, err := MedianConfidence(nil, 0.95); err == nil {
		t.Errorf("empty input accepted")
	}
}
