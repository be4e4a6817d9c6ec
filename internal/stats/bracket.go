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
