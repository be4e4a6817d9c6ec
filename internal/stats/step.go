package stats

import "math"

// Band classifies a step's change.
type Band string

// The bands, from the report's point of view.
const (
	// BandInvalid: either side of the step is invalid, or the change is
	// undefined (the "from" median is not positive).
	BandInvalid Band = "invalid"
	// BandNoise: |change| < the run's noise floor.
	BandNoise Band = "noise"
	// BandSmall: not noise, and |change| < SmallChange.
	BandSmall Band = "small"
	// BandReal: |change| ≥ SmallChange and not noise.
	BandReal Band = "real"
)

// SmallChange is the relative change below which a step that is not noise
// is called small: 10 %.
const SmallChange = 0.10

// Classify returns the band of a relative change given the noise floor:
// noise when |change| < floor, else small when |change| < SmallChange, else
// real. A change exactly at the floor is not noise; exactly 10 % is real.
// With a floor of 10 % or more, small cannot happen.
func Classify(change, floor float64) Band {
	a := math.Abs(change)
	switch {
	case a < floor:
		return BandNoise
	case a < SmallChange:
		return BandSmall
	default:
		return BandReal
	}
}

// Side is one end of a step: a cell, as far as comparing it goes.
type Side struct {
	// Valid is false when the cell is invalid.
	Valid bool
	// Median is the cell's Summary.Median of the metric compared.
	Median float64
	// Windows are the metric's values, one per window.
	Windows []float64
}

// Step is the change in one metric from one cell to another.
type Step struct {
	// Change is (to.Median − from.Median) ÷ from.Median, defined when
	// ChangeDefined (both sides valid and from.Median > 0).
	Change        float64
	ChangeDefined bool
	// Band classifies Change against the noise floor and SmallChange.
	Band Band
	// Test is the Mann-Whitney U test over the two sides' windows; it is
	// run for invalid sides too, but a report should show it only beside a
	// valid band.
	Test Significance
}

// Compare returns the step from one cell to another for one metric, with
// the run's noise floor (an unknown floor, Known false, is 0: nothing is
// called noise) and the test's significance level alpha.
func Compare(from, to Side, floor Floor, alpha float64) Step {
	st := Step{Band: BandInvalid, Test: MannWhitney(from.Windows, to.Windows, alpha)}
	if !from.Valid || !to.Valid || !(from.Median > 0) {
		return st
	}
	st.Change = (to.Median - from.Median) / from.Median
	st.ChangeDefined = true
	st.Band = Classify(st.Change, floor.Spread)
	return st
}
