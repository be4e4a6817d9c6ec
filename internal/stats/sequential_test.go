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
		levels   []float64
	}{
		{Independent, 4, 4, []int{4}, []float64{0.05}}, // one look
		// At 0.05 the first look could be 4 (2/70 = 0.029), before half of
		// 10; with two looks the first has 0.01 and needs 5 (2/252),
		// within three quarters of 10; the last keeps 0.04.
		{Independent, 4, 10, []int{5, 10}, []float64{0.01, 0.04}},
		// Paired, 4 to 12: at 0.05 the first could be 6 (2/64), not past
		// half; at 0.01 it is 8 (2/256), within 9: 8 and 12.
		{Paired, 4, 12, []int{8, 12}, []float64{0.01, 0.04}},
		{Paired, 4, 16, []int{8, 16}, []float64{0.01, 0.04}},
		{Paired, 6, 12, []int{8, 12}, []float64{0.01, 0.04}},
		// 4 to 24: at 0.01, 8 and 16 fit before 18, three looks in all;
		// with three looks each early one has 0.005: 9 (2/512) and 18.
		{Paired, 4, 24, []int{9, 18, 24}, []float64{0.005, 0.005, 0.04}},
		// Paired, 4 to 11: at 0.05 the first could be 6, past half of 11:
		// one look at 11 at 0.05.
		{Paired, 4, 11, []int{11}, []float64{0.05}},
		{Paired, 2, 4, nil, []float64{0.05 / 3}}, // 4 pairs can never decide (2/16)
		{Paired, 4, 4, nil, []float64{0.05}},
	} {
		looks, levels := Looks(c.d, 0.05, c.min, c.max)
		if !slices.Equal(looks, c.looks) || len(levels) != len(c.levels) {
			t.Errorf("Looks(%s, 0.05, %d, %d) = %v, %v; want %v, %v", c.d, c.min, c.max, looks, levels, c.looks, c.levels)
			continue
		}
		sum := 0.0
		for i := range levels {
			sum += levels[i]
			if math.Abs(levels[i]-c.levels[i]) > 1e-15 {
				t.Errorf("Looks(%s, 0.05, %d, %d) levels %v, want %v", c.d, c.min, c.max, levels, c.levels)
			}
		}
		if looks != nil && sum > 0.05+1e-15 {
			t.Errorf("Looks(%s, 0.05, %d, %d) spends %v over its looks, more than α", c.d, c.min, c.max, sum)
		}
		for i, n := range looks {
			if c.d.MinLevel(n) > levels[i] {
				t.Errorf("%s %d–%d: look %d cannot decide at %v", c.d, c.min, c.max, n, levels[i])
			}
		}
	}
	// Plans made before the spending rule re-read their journals at the
	// equal shares they ran at.
	for _, c := range []struct {
		d        Design
		min, max int
		looks    []int
		alpha    float64
	}{
		{Independent, 4, 10, []int{5, 10}, 0.025},
		{Paired, 4, 12, []int{12}, 0.05},
		{Paired, 4, 16, []int{7, 14, 16}, 0.05 / 3},
		{Paired, 4, 24, []int{7, 14, 24}, 0.05 / 3},
	} {
		looks, levels := LooksLaggedEqual(c.d, 0.05, 1, c.min, c.max, 0)
		if !slices.Equal(looks, c.looks) || len(levels) != len(looks) || math.Abs(levels[0]-c.alpha) > 1e-15 || levels[0] != levels[len(levels)-1] {
			t.Errorf("LooksLaggedEqual(%s, 0.05, %d, %d) = %v, %v; want %v, each %v", c.d, c.min, c.max, looks, levels, c.looks, c.alpha)
		}
	}
	if got := LookLevel([]int{8, 16}, []float64{0.01, 0.04}, 12); got != 0.01 {
		t.Errorf("LookLevel between the looks = %v, want the first look's 0.01", got)
	}
	if got := LookLevel([]int{8, 16}, []float64{0.01, 0.04}, 16); got != 0.04 {
		t.Errorf("LookLevel at the last look = %v, want 0.04", got)
	}
	// Family run over 42 calls (the README demo: 3 steps × 7 cases × 2
	// metrics), paired, rounds 4 to 13: a single effect can be selected
	// only where 2 ÷ 2ⁿ ≤ α ÷ 42, from round 11 at 0.05, past half of 13:
	// one look at 13 at 0.05.
	if looks, a := LooksFor(Paired, 0.05, 42, 4, 13); !slices.Equal(looks, []int{13}) || a[0] != 0.05 {
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
				v := Decide(Side{Valid: true, Windows: x}, Side{Valid: true, Windows: y}, DefaultMinEffect, LookLevel(looks, a, r))
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
