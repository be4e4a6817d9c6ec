package stats

import "math"

// Bracketed widens the interval of a shift between two capacities by the
// brackets of the searches that found them. A search's capacity c is the
// rate it confirmed, and the lowest rate above it that failed is f: the
// rate the server sustains lies in [c, f), known only to the bracket's
// width. The ratio to ÷ from is then known to within
// [c_to ÷ f_from, f_to ÷ c_from] on top of what the windows say, so the
// interval's lower end moves down by log(f_from ÷ c_from) and its upper end
// up by log(f_to ÷ c_to), on the log scale the shift is estimated on; the
// estimate stays. A bracket with no failing rate (f ≤ c) has no upper
// end: the shift is then unbounded, and no call can rest on it.
func (s Shift) Bracketed(fromCapacity, fromFail, toCapacity, toFail float64) Shift {
	if !s.Bounded {
		return s
	}
	if !(fromFail > fromCapacity && fromCapacity > 0) || !(toFail > toCapacity && toCapacity > 0) {
		s.Lo, s.Hi, s.Bounded = -1, math.Inf(1), false
		return s
	}
	s.Lo = math.Expm1(math.Log1p(s.Lo) - math.Log(fromFail/fromCapacity))
	s.Hi = math.Expm1(math.Log1p(s.Hi) + math.Log(toFail/toCapacity))
	return s
}

// Widened widens a bounded interval by margin on the log scale at both
// ends (margin ≥ 0); the estimate stays. A capacity step uses it for the
// spread between processes, which one search a side cannot show.
func (s Shift) Widened(margin float64) Shift {
	if !s.Bounded || margin <= 0 {
		return s
	}
	s.Lo = math.Expm1(math.Log1p(s.Lo) - margin)
	s.Hi = math.Expm1(math.Log1p(s.Hi) + margin)
	return s
}

// ProcessMargin is the log-scale margin for the spread between processes
// of two sides, each one process with robust coefficients of variation
// cvFrom and cvTo: z(1 − alpha/2) · √(cvFrom² + cvTo²), a CV being close to
// the standard deviation of the log at these sizes.
func ProcessMargin(cvFrom, cvTo, alpha float64) float64 {
	return normalQuantile(1-alpha/2) * math.Hypot(cvFrom, cvTo)
}
