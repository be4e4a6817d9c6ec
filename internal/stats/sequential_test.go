package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSequentialAlphaHandComputed(t *testing.T) {
	for _, c := range []struct {
		min, max int
		want     float64
	}{
		{4, 4, 0.05},      // one look
		{4, 10, 0.05 / 6}, // 4+4 cannot reach 0.05/7 (2/70 = 0.029); 5+5 reaches 0.05/6 (2/252 = 0.0079 ≤ 0.0083)
		{5, 10, 0.05 / 6}, // the same looks
		{6, 10, 0.05 / 5}, // 6+6: 2/924 ≤ 0.01
		{4, 6, 0.05 / 2},  // 4+4: 0.029 > 0.05/3; 5+5: 0.0079 ≤ 0.05/2
	} {
		if got := SequentialAlpha(Independent, 0.05, c.min, c.max); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("SequentialAlpha(0.05, %d, %d) = %v, want %v", c.min, c.max, got, c.want)
		}
	}
}

// TestAdaptiveFalseCallRate simulates the adaptive rule on A/A pairs (the
// same distribution on both sides): measure the minimum rounds, then look
// after each round, stopping when the call is decided or at the maximum,
// every look at SequentialAlpha. The share of pairs that end in a gain or
// a loss stays at or under α; the test prints it, with the power to call a
// real 10 % shift a gain under the same rule.
func TestAdaptiveFalseCallRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const trials = 2000
	const minR, maxR = 4, 10
	a := SequentialAlpha(Independent, DefaultAlpha, minR, maxR)
	run := func(shift, noise float64) (gainOrLoss, gain, same int, rounds float64) {
		for trial := 0; trial < trials; trial++ {
			var x, y []float64
			for r := 1; r <= maxR; r++ {
				x = append(x, 1000*math.Exp(noise*rng.NormFloat64()))
				y = append(y, 1000*(1+shift)*math.Exp(noise*rng.NormFloat64()))
				if r < minR {
					continue
				}
				v := Decide(Side{Valid: true, Windows: x}, Side{Valid: true, Windows: y}, DefaultMinEffect, a)
				if v.Call != CallUndecided || r == maxR {
					switch v.Call {
					case CallGain:
						gain++
						gainOrLoss++
					case CallLoss:
						gainOrLoss++
					case CallSame:
						same++
					}
					rounds += float64(r)
					break
				}
			}
		}
		return gainOrLoss, gain, same, rounds / trials
	}
	for _, noise := range []float64{0.02, 0.05, 0.10} {
		wrong, _, same, rounds := run(0, noise)
		rate := float64(wrong) / trials
		t.Logf("A/A, noise %.0f %%: %.4f called gain or loss, %.3f same, %.1f rounds on average", 100*noise, rate, float64(same)/trials, rounds)
		if rate > DefaultAlpha+3*math.Sqrt(DefaultAlpha*(1-DefaultAlpha)/trials) {
			t.Errorf("A/A, noise %.2f: false-call rate %.4f above α with adaptive stopping", noise, rate)
		}
		for _, shift := range []float64{0.05, 0.10, 0.20} {
			_, gain, _, rounds := run(shift, noise)
			t.Logf("  +%.0f %% shift, noise %.0f %%: called gain in %.3f, %.1f rounds on average", 100*shift, 100*noise, float64(gain)/trials, rounds)
		}
	}
}
