package stats

import (
	"math"
	"testing"
)

func TestBracketedWidensByEachSearchsBracket(t *testing.T) {
	s := Shift{Estimate: 0.10, Lo: 0.09, Hi: 0.11, Bounded: true, Confidence: 0.97, N1: 4, N2: 4}
	// from: capacity 1000, failed at 1020 (2 %); to: 1100, failed at 1133 (3 %).
	b := s.Bracketed(1000, 1020, 1100, 1133)
	if want := 1.09/1.02 - 1; math.Abs(b.Lo-want) > 1e-12 {
		t.Errorf("lo %v, want %v", b.Lo, want)
	}
	if want := 1.11*1.03 - 1; math.Abs(b.Hi-want) > 1e-12 {
		t.Errorf("hi %v, want %v", b.Hi, want)
	}
	if b.Estimate != s.Estimate || !b.Bounded || b.Confidence != s.Confidence {
		t.Errorf("%+v", b)
	}
	// A wide bracket turns a gain into an undecided call.
	if CallOf(s, 0.05) != CallGain || CallOf(s.Bracketed(1000, 1100, 1100, 1200), 0.05) != CallUndecided {
		t.Errorf("calls %s and %s", CallOf(s, 0.05), CallOf(s.Bracketed(1000, 1100, 1100, 1200), 0.05))
	}
	// No failing rate above a capacity: no upper end, no call.
	if u := s.Bracketed(1000, 0, 1100, 1133); u.Bounded || CallOf(u, 0.05) != CallUndecided {
		t.Errorf("unbounded bracket gave %+v", u)
	}
	if u := (Shift{Bounded: false, Lo: -1, Hi: math.Inf(1)}).Bracketed(1, 2, 1, 2); u.Bounded {
		t.Errorf("an unbounded shift became bounded")
	}
}
