package pgfix

import "math/big"

// mulberry32 is the PRNG of the published harnesses, in JavaScript's
// semantics: its state and all arithmetic are uint32 (JavaScript's
// Math.imul and >>> 0), which Go's uint32 wrapping reproduces exactly.
type mulberry32 struct{ state uint32 }

// next returns the next uint32 of the sequence.
func (m *mulberry32) next() uint32 {
	m.state += 0x6D2B79F5
	t := m.state
	t = (t ^ t>>15) * (t | 1)
	t ^= t + (t^t>>7)*(t|61)
	return t ^ t>>14
}

// draw returns the next value in [0, 1): the next uint32 divided by 2^32,
// exact in a float64 as in JavaScript.
func (m *mulberry32) draw() float64 {
	return float64(m.next()) / 4294967296
}

// toFixed2 formats x as JavaScript's x.toFixed(2) does for finite |x| < 1e21: it
// picks the integer n for which n/100 - x is closest to zero, computed on
// x's exact binary value, and the larger n on a tie. So 0.125 gives "0.13"
// (a true tie), while 1.005 gives "1.00" because the double nearest 1.005
// lies below it.
func toFixed2(x float64) string {
	if x < 0 { // JavaScript: "-" and the magnitude, even when it is "0.00"
		return "-" + hundredthsString(roundedHundredths(-x))
	}
	return hundredthsString(roundedHundredths(x))
}

// roundedHundredths returns floor(x*100 + 1/2) for x ≥ 0, exactly.
func roundedHundredths(x float64) *big.Int {
	r := new(big.Rat).SetFloat64(x)
	r.Mul(r, big.NewRat(100, 1))
	r.Add(r, big.NewRat(1, 2))
	return new(big.Int).Quo(r.Num(), r.Denom()) // floor, as both are positive
}

func hundredthsString(n *big.Int) string {
	digits := n.String()
	for len(digits) < 3 {
		digits = "0" + digits
	}
	return digits[:len(digits)-2] + "." + digits[len(digits)-2:]
}

// amountHundredths returns the order amount draw*500 rounded as toFixed(2)
// does, in hundredths. draw is u/2^32, so draw*500*100 = u*50000/2^32
// exactly (a float64 holds draw*500 without rounding: u*500 < 2^41), and
// the rounding is integer arithmetic: floor((u*50000 + 2^31) / 2^32).
// TestAmountMatchesToFixed checks it against toFixed2 on draw*500.
func amountHundredths(u uint32) int64 {
	return int64((uint64(u)*50000 + 1<<31) >> 32)
}

// formatHundredths formats n hundredths as "I.FF".
func formatHundredths(n int64) string {
	return hundredthsString(big.NewInt(n))
}
