package stats

import (
	"math"

	"golang.org/x/perf/benchmath"
)

// MedianCI is a distribution-free confidence interval for the median,
// built by benchmath from order statistics (binomial), so it needs no
// assumption about the windows' distribution.
type MedianCI struct {
	// Center is benchmath's sample median. For an even count it is the mean
	// of the two middle values, unlike Summary.Median; it is shown only
	// beside its interval.
	Center float64
	// Lo and Hi bound the interval; Defined is false when there are too few
	// windows for a finite interval at the requested confidence (Lo and Hi
	// are then 0, and Warnings says how many are needed).
	Lo, Hi  float64
	Defined bool
	// Confidence is the interval's actual level, ≥ the one requested.
	Confidence float64
	// Warnings are benchmath's caveats, as text.
	Warnings []string
}

// MedianConfidence returns the confidence interval for the median of
// values at the given confidence level (for example 0.95). values is not
// modified. It fails on an empty slice or a non-finite value.
func MedianConfidence(values []float64, confidence float64) (MedianCI, error) {
	if err := checkValues(values); err != nil {
		return MedianCI{}, err
	}
	s := benchmath.NewSample(append([]float64(nil), values...), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	ci := MedianCI{Center: sum.Center, Confidence: sum.Confidence}
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) && !math.IsNaN(sum.Lo) && !math.IsNaN(sum.Hi) {
		ci.Lo, ci.Hi, ci.Defined = sum.Lo, sum.Hi, true
	}
	for _, w := range sum.Warnings {
		ci.Warnings = append(ci.Warnings, w.Error())
	}
	return ci, nil
}
