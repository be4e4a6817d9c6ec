package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCallOfBoundaries(t *testing.T) {
	b := func(est, lo, hi float64) Shift { return Shift{Estimate: est, Lo: lo, Hi: hi, Bounded: true} }
	cases := []struct {
		s    Shift
		want Call
	}{
		{b(0.08, 0.02, 0.12), CallGain},
		{b(0.05, 0.01, 0.09), CallGain}, // estimate exactly at the minimum effect
		{b(0.04, 0.01, 0.07), CallUndecided},
		{b(0.03, 0.01, 0.049), CallSame}, // excludes 0 but all within ±5 %: too small to matter
		{b(-0.08, -0.12, -0.02), CallLoss},
		{b(-0.05, -0.09, -0.01), CallLoss},
		{b(0, -0.05, 0.05), CallSame}, // the interval's ends at ±min are still within
		{b(0, -0.051, 0.03), CallUndecided},
		{b(0.2, -0.01, 0.4), CallUndecided}, // includes 0
		{b(0.2, 0, 0.4), CallUndecided},     // touches 0: does not exclude it
		{Shift{Estimate: 0.5, Lo: -1, Hi: math.Inf(1)}, CallUndecided},
	}
	for _, c := range cases {
		if got := CallOf(c.s, 0.05); got != c.want {
			t.Errorf("CallOf(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestDecide(t *testing.T) {
	a := Side{Valid: true, Windows: []float64{98, 100, 101, 99, 102}}
	up := Side{Valid: true, Windows: []float64{109, 110, 112, 108, 111}}
	v := Decide(a, up, DefaultMinEffect, DefaultAlpha)
	if v.Call != CallGain || math.Abs(v.Shift.Estimate-0.1) > 0.01 || v.Shift.Lo <= 0 {
		t.Errorf("100 → 110: %+v", v)
	}
	if back := Decide(up, a, DefaultMinEffect, DefaultAlpha); back.Call != CallLoss {
		t.Errorf("110 → 100: %+v", back)
	}
	same := Side{Valid: true, Windows: []float64{99.5, 100.5, 100, 101, 99}}
	if v := Decide(a, same, DefaultMinEffect, DefaultAlpha); v.Call != CallSame {
		t.Errorf("100 → 100: %+v", v)
	}
	few := Side{Valid: true, Windows: []float64{150, 160, 155}}
	v = Decide(Side{Valid: true, Windows: []float64{100, 101, 99}}, few, DefaultMinEffect, DefaultAlpha)
	if v.Call != CallUndecided || v.Shift.Bounded || v.WindowsNeeded < 4 {
		t.Errorf("3 vs 3 windows cannot decide at α=0.05, and at least 4 a side are needed: %+v", v)
	}
	for _, pair := range [][2]Side{{a, {Valid: false, Windows: up.Windows}}, {{Valid: false}, a}, {{Valid: true, Windows: []float64{0, 1}}, a}} {
		if v := Decide(pair[0], pair[1], DefaultMinEffect, DefaultAlpha); v.Call != CallInvalid || v.Reason == "" {
			t.Errorf("Decide(%+v, %+v) = %+v, want invalid with a reason", pair[0], pair[1], v)
		}
	}
}

func TestWindowsNeededDecidesWhenFollowed(t *testing.T) {
	// A +8 % shift in 4 % noise is undecided at 4 windows; at the number
	// of windows the estimate asks for, most draws decide it as a gain.
	rng := rand.New(rand.NewPCG(7, 8))
	draw := func(n int, scale float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = 1000 * scale * math.Exp(0.04*rng.NormFloat64())
		}
		return out
	}
	var needs []float64
	for i := 0; i < 200; i++ {
		v := Decide(Side{Valid: true, Windows: draw(4, 1)}, Side{Valid: true, Windows: draw(4, 1.08)}, 0.05, 0.05)
		if v.Call == CallUndecided {
			needs = append(needs, float64(v.WindowsNeeded))
		}
	}
	if len(needs) < 50 {
		t.Fatalf("only %d of 200 draws undecided at 4 windows: the setup does not test anything", len(needs))
	}
	need, _ := Quantile(needs, 0.5)
	decided := 0
	for i := 0; i < 200; i++ {
		v := Decide(Side{Valid: true, Windows: draw(int(need), 1)}, Side{Valid: true, Windows: draw(int(need), 1.08)}, 0.05, 0.05)
		if v.Call == CallGain {
			decided++
		}
	}
	t.Logf("median windows needed %v; at that many, %d of 200 draws called gain", need, decided)
	if decided < 60 {
		t.Errorf("at the %v windows asked for, only %d of 200 draws were decided", need, decided)
	}
}

// TestFalseCallRateAA: two samples from the same distribution are called
// gain or loss no more often than α (within the simulation's error), at
// several noise levels and sizes.
func TestFalseCallRateAA(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const trials = 3000
	for _, noise := range []float64{0.02, 0.05, 0.15} {
		for _, n := range []int{4, 6, 10} {
			wrong := 0
			for trial := 0; trial < trials; trial++ {
				a, b := make([]float64, n), make([]float64, n)
				for i := range a {
					a[i] = 1000 * math.Exp(noise*rng.NormFloat64())
					b[i] = 1000 * math.Exp(noise*rng.NormFloat64())
				}
				if c := Decide(Side{Valid: true, Windows: a}, Side{Valid: true, Windows: b}, 0.05, 0.05).Call; c == CallGain || c == CallLoss {
					wrong++
				}
			}
			rate := float64(wrong) / trials
			t.Logf("A/A, noise %.0f %%, %d windows a side: %.4f called gain or loss", 100*noise, n, rate)
			if rate > 0.05+3*math.Sqrt(0.05*0.95/trials) {
				t.Errorf("A/A, noise %.2f, %d windows: false-call rate %.4f above α", noise, n, rate)
			}
		}
	}
}
