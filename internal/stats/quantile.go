package stats

import (
	"fmt"
	"math"
	"sort"
)

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of values by linear
// interpolation between order statistics: with x sorted ascending and
// h = (n−1)·p, Q(p) = x[⌊h⌋] + (h−⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]). This is
// Hyndman & Fan's type 7, the default of R and NumPy, so a reader can check
// a figure with either. values is not modified.
func Quantile(values []float64, p float64) (float64, error) {
	if err := checkValues(values); err != nil {
		return 0, err
	}
	if !(p >= 0 && p <= 1) {
		return 0, fmt.Errorf("quantile %v is outside [0, 1]", p)
	}
	return quantileSorted(sortedCopy(values), p), nil
}

// quantileSorted is Quantile over an already sorted, non-empty slice.
func quantileSorted(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

// checkValues rejects an empty slice and non-finite values, which no
// measurement can produce and which would poison every summary.
func checkValues(values []float64) error {
	if len(values) == 0 {
		return fmt.Errorf("no values to summarise")
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value %d is %v; every window's figure must be finite", i, v)
		}
	}
	return nil
}

func sortedCopy(values []float64) []float64 {
	x := append([]float64(nil), values...)
	sort.Float64s(x)
	return x
}
