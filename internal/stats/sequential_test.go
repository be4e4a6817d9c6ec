package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestLooksHandComputed(t *testing.T) {
	for _, c := range []struct {
		d        Design
		min, max int
		looks    []int
		alpha    float64
	}{
		{Independent, 4, 4, []int{4}, 0.05}, // one look
		// One look cannot cover 4 (decidable at 0.05) and the last; at 0.025
		// 4+4 (2/70 = 0.029) is not enough, 5+5 (0.0079) is: 5, 10.
		{Independent, 4, 10, []int{5, 10}, 0.025},
		// Paired, 4 to 12: at 0.05 the first is 6 (2/64), then 12: two
		// looks; at 0.025 the first is 7 (2/128 = 0.016), past half of 12:
		// one look at 12 at 0.05 decides more than 7 and 12 at 0.025.
		{Paired, 4, 12, []int{12}, 0.05},
		{Paired, 4, 16, []int{7, 14, 16}, 0.05 / 3},
		{Paired, 6, 12, []int{12}, 0.05},
		{Paired, 4, 24, []int{7, 14, 24}, 0.05 / 3},
		{Paired, 2, 4, nil, 0.05 / 3}, // 4 pairs can never decide (2/16)
		{Paired, 4, 4, nil, 0.05},
	} {
		looks, a := Looks(c.d, 0.05, c.min, c.max)
		if !slices.Equal(looks, c.looks) || math.Abs(a-c.alpha) > 1e-15 {
			t.Errorf("Looks(%s, 0.05, %d, %d) = %v, %v; want %v, %v", c.d, c.min, c.max, looks, a, c.looks, c.alpha)
		}
		for _, n := range looks {
			if c.d.MinLevel(n) > a {
				t.Errorf("%s %d–%d: look %d cannot decide at %v", c.d, c.min, c.max, n, a)
			}
		}
	}
	// Family run over 42 calls (the README demo: 3 steps × 7 cases × 2
	// metrics), paired, rounds 4 to 13: a single effect can be selected
	// only where 2 ÷ 2ⁿ ≤ α ÷ 42, from round 11 at 0.05, past half of 13:
	// one look at 13 at 0.05.
	if looks, a := LooksFor(Paired, 0.05, 42, 4, 13); !slices.Equal(looks, []int{13}) || a != 0.05 {
		t.Errorf("LooksFor(paired, 0.05, 42 calls, 4, 13) = %v, %v; want [13], 0.05", looks, a)
	}
	if looks, _ := LooksFor(Paired, 0.05, 42, 4, 10); looks != nil {
		t.Errorf("LooksFor(paired, 42 calls, 4, 10) = %v; 10 pairs cannot select one call of 42 (2/1024 > 0.05/42)", looks)
	}
	if got := LastLook([]int{7, 14, 16}, 13); got != 7 {
		t.Errorf("LastLook at 13 = %d, want 7", got)
	}
	if got := LastLook([]int{7, 14, 16}, 6); got != 0 {
		t.Errorf("LastLook at 6 = %d, want 0", got)
	}
}

// TestAdaptiveFalseCallRate simulates the adaptive rule on A/A pairs (the
// same distribution on both sides): look at the rounds of the schedule
// (Looks), stopping when the call is decided or at the last, every look at
// its level. The share of pairs that end in a gain or
// a loss stays at or under α; the test prints it, with the power to call a
// real 10 % shift a gain under the same rule.
func TestAdaptiveFalseCallRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const trials = 2000
	const minR, maxR = 4, 10
	looks, a := Looks(Independent, DefaultAlpha, minR, maxR)
	run := func(shift, noise float64) (gainOrLoss, gain, same int, rounds float64) {
		for trial := 0; trial < trials; trial++ {
			var x, y []float64
			for r := 1; r <= maxR; r++ {
				x = append(x, 1000*math.Exp(noise*rng.NormFloat64()))
				y = append(y, 1000*(1+shift)*math.Exp(noise*rng.NormFloat64()))
				if !slices.Contains(looks, r) {
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

// Calls whose windows start a round late (latency windows at a share of
// round 1's throughput) have one pair fewer at every round: 9 rounds
// reach 8 pairs, whose smallest p (2 ÷ 2⁸) a family of 12 cannot select.
func TestLooksLagged(t *testing.T) {
	if looks, _ := LooksFor(Paired, 0.05, 12, 4, 9); !slices.Equal(looks, []int{9}) {
		t.Errorf("no lag, 9 rounds: looks %v, want [9]", looks)
	}
	if looks, _ := LooksLagged(Paired, 0.05, 12, 4, 9, 1); looks != nil {
		t.Errorf("lag 1, 9 rounds: looks %v, want none (8 pairs reach 2/256 > 0.05/12)", looks)
	}
	if looks, _ := LooksLagged(Paired, 0.05, 12, 4, 10, 1); !slices.Equal(looks, []int{10}) {
		t.Errorf("lag 1, 10 rounds: looks %v, want [10]", looks)
	}
	if a, b := fmt.Sprint(LooksLagged(Paired, 0.05, 24, 4, 16, 0)), fmt.Sprint(LooksFor(Paired, 0.05, 24, 4, 16)); a != b {
		t.Errorf("lag 0 %s differs from LooksFor %s", a, b)
	}
}
