package stats

import (
	"fmt"
	"math"
)

// HarmonicMean returns the weighted harmonic mean Σw ÷ Σ(w/x) of rates x.
// It is the right mean of rates over a mix: with weights as the share of
// requests of each kind, it is the overall rate of the mix. Values with a
// zero weight are ignored. It fails when the lengths differ, a weight is
// negative or not finite, no weight is positive, or a weighted value is not
// a positive finite number (a zero rate has no capacity to average).
func HarmonicMean(values, weights []float64) (float64, error) {
	if len(values) != len(weights) {
		return 0, fmt.Errorf("harmonic mean: %d values but %d weights", len(values), len(weights))
	}
	var sumW, sumWOverX float64
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return 0, fmt.Errorf("harmonic mean: weight %d is %v; weights must be finite and ≥ 0", i, w)
		}
		if w == 0 {
			continue
		}
		x := values[i]
		if !(x > 0) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("harmonic mean: value %d is %v; rates must be finite and > 0", i, x)
		}
		sumW += w
		sumWOverX += w / x
	}
	if sumW == 0 {
		return 0, fmt.Errorf("harmonic mean: no positive weight")
	}
	return sumW / sumWOverX, nil
}
