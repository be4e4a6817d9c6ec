package stats

// Summary describes one metric over a cell's windows.
type Summary struct {
	// N is the number of windows.
	N int
	// Median is the value of the median window (see MedianIndex), not an
	// average of two windows.
	Median float64
	// MedianIndex is the index, in the input, of the median window.
	MedianIndex int
	// Min and Max are the smallest and largest values.
	Min, Max float64
	// Q1 and Q3 are the 0.25 and 0.75 quantiles (see Quantile), and IQR is
	// Q3 − Q1.
	Q1, Q3, IQR float64
	// Spread is the relative spread (Max − Min) ÷ Median. It is defined
	// (SpreadDefined) only when Median > 0; with one window it is 0 and says
	// nothing about noise; the calls (Decide) take it into account.
	Spread        float64
	SpreadDefined bool
}

// Summarize summarises one metric's values, one per window, in journal
// order. It fails on an empty slice or a non-finite value.
func Summarize(values []float64) (Summary, error) {
	if err := checkValues(values); err != nil {
		return Summary{}, err
	}
	x := sortedCopy(values)
	mi := MedianIndex(values)
	s := Summary{
		N:           len(values),
		Median:      values[mi],
		MedianIndex: mi,
		Min:         x[0],
		Max:         x[len(x)-1],
		Q1:          quantileSorted(x, 0.25),
		Q3:          quantileSorted(x, 0.75),
	}
	s.IQR = s.Q3 - s.Q1
	s.Spread, s.SpreadDefined = RelativeSpread(s.Min, s.Max, s.Median)
	return s, nil
}

// RelativeSpread returns (max − min) ÷ median and whether it is defined
// (median > 0). It is the one definition of a cell's range-based spread,
// used by Summary and the report's per-metric spreads.
func RelativeSpread(minValue, maxValue, median float64) (float64, bool) {
	if !(median > 0) {
		return 0, false
	}
	return (maxValue - minValue) / median, true
}
