package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// signedRankEnum counts, over all 2ⁿ sign patterns, the sum of the ranks
// with a plus sign: the reference distribution of T.
func signedRankEnum(n int) []float64 {
	counts := make([]float64, n*(n+1)/2+1)
	for mask := 0; mask < 1<<n; mask++ {
		t := 0
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				t += i + 1
			}
		}
		counts[t]++
	}
	cdf := make([]float64, len(counts))
	acc := 0.0
	for t, c := range counts {
		acc += c
		cdf[t] = acc / float64(int(1)<<n)
	}
	return cdf
}

func TestSignedRankCDFMatchesEnumeration(t *testing.T) {
	for n := 1; n <= 14; n++ {
		got, want := signedRankCDF(n), signedRankEnum(n)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d values, want %d", n, len(got), len(want))
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("n=%d: P(T ≤ %d) = %v, want %v", n, i, got[i], want[i])
			}
		}
	}
}

// TestSignedRankHandComputed checks values counted by hand for 6 pairs:
// the subsets of the ranks {1…6} with sum ≤ 2 are {}, {1} and {2}, so
// P(T ≤ 2) = 3/64; sum ≤ 3 adds {3} and {1,2}, so P(T ≤ 3) = 5/64.
func TestSignedRankHandComputed(t *testing.T) {
	cdf := signedRankCDF(6)
	for _, c := range []struct {
		t    int
		want float64
	}{{0, 1.0 / 64}, {1, 2.0 / 64}, {2, 3.0 / 64}, {3, 5.0 / 64}, {21, 1}} {
		if math.Abs(cdf[c.t]-c.want) > 1e-15 {
			t.Errorf("P(T ≤ %d) = %v, want %v", c.t, cdf[c.t], c.want)
		}
	}
	// Level 0.05 with 6 pairs: 2·P(T ≤ 0) = 0.031 ≤ 0.05 < 2·P(T ≤ 1) = 0.0625,
	// so k = 1 (the widest interval) with coverage 1 − 2/64.
	k, cov := signedRankRank(6, 0.05)
	if k != 1 || math.Abs(cov-(1-2.0/64)) > 1e-15 {
		t.Errorf("signedRankRank(6, 0.05) = %d, %v; want 1, %v", k, cov, 1-2.0/64)
	}
	if k, _ := signedRankRank(5, 0.05); k != 0 {
		t.Errorf("5 pairs reach 2/32 = 0.0625 at best, above 0.05: k = %d, want 0", k)
	}
}

// naivePaired computes the paired shift the long way: every Walsh average,
// the median, and the rank from the enumerated distribution.
func naivePaired(from, to []float64, alpha float64) (est, lo, hi float64, bounded bool) {
	var d []float64
	for i := range from {
		d = append(d, math.Log(to[i]/from[i]))
	}
	var w []float64
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	m := len(w)
	var med float64
	if m%2 == 1 {
		med = w[m/2]
	} else {
		med = (w[m/2-1] + w[m/2]) / 2
	}
	cdf := signedRankEnum(len(d))
	k := 0
	for k < len(cdf) && 2*cdf[k] <= alpha {
		k++
	}
	if k == 0 {
		return math.Expm1(med), -1, math.Inf(1), false
	}
	return math.Expm1(med), math.Expm1(w[k-1]), math.Expm1(w[m-k]), true
}

func TestPairedShiftMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(12)
		from, to := make([]float64, n), make([]float64, n)
		for i := range from {
			from[i] = 1000 * math.Exp(0.1*rng.NormFloat64())
			to[i] = from[i] * math.Exp(0.03+0.05*rng.NormFloat64())
		}
		alpha := []float64{0.01, 0.05, 0.1}[trial%3]
		s, err := PairedShift(from, to, alpha)
		if err != nil {
			t.Fatal(err)
		}
		est, lo, hi, bounded := naivePaired(from, to, alpha)
		if s.Bounded != bounded || math.Abs(s.Estimate-est) > 1e-12 || (bounded && (math.Abs(s.Lo-lo) > 1e-12 || math.Abs(s.Hi-hi) > 1e-12)) {
			t.Fatalf("n=%d α=%v: got %+v, want est %v [%v, %v] bounded %v", n, alpha, s, est, lo, hi, bounded)
		}
		if s.Pairs != n || s.N1 != n || s.N2 != n {
			t.Fatalf("sizes %d/%d/%d, want %d", s.Pairs, s.N1, s.N2, n)
		}
	}
}

// TestPairedShiftHandComputed: the log-ratios ln 1.1, ln 1.2 and ln 0.9
// give six Walsh averages; sorted: ln .9, (ln .9 + ln 1.1)/2,
// (ln .9 + ln 1.2)/2, ln 1.1, (ln 1.1 + ln 1.2)/2, ln 1.2. Their median is
// the mean of the third and the fourth.
func TestPairedShiftHandComputed(t *testing.T) {
	s, err := PairedShift([]float64{100, 100, 100}, []float64{110, 120, 90}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Expm1(((math.Log(0.9)+math.Log(1.2))/2 + math.Log(1.1)) / 2)
	if math.Abs(s.Estimate-want) > 1e-12 {
		t.Errorf("estimate %v, want %v", s.Estimate, want)
	}
	if s.Bounded {
		t.Errorf("3 pairs cannot bound a 95 %% interval (2/8 > 0.05): %+v", s)
	}
}

// TestPairedShiftDualToSignedRankTest: the interval excludes 0 exactly when
// the two-sided exact signed-rank test of the log-ratios rejects at the
// interval's level.
func TestPairedShiftDualToSignedRankTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for trial := 0; trial < 300; trial++ {
		n := 6 + rng.IntN(7)
		from, to := make([]float64, n), make([]float64, n)
		for i := range from {
			from[i] = 100
			to[i] = 100 * math.Exp(0.02*rng.NormFloat64()+0.01*float64(trial%5-2))
		}
		s, err := PairedShift(from, to, 0.05)
		if err != nil || !s.Bounded {
			t.Fatalf("n=%d: %+v, %v", n, s, err)
		}
		// T+ and its two-sided p from the enumerated distribution.
		type dr struct {
			abs float64
			pos bool
		}
		var ds []dr
		for i := range from {
			l := math.Log(to[i] / from[i])
			ds = append(ds, dr{math.Abs(l), l > 0})
		}
		slices.SortFunc(ds, func(a, b dr) int {
			if a.abs < b.abs {
				return -1
			}
			return 1
		})
		tplus := 0
		for i, d := range ds {
			if d.pos {
				tplus += i + 1
			}
		}
		cdf := signedRankEnum(n)
		tmin := min(tplus, n*(n+1)/2-tplus)
		p := min(1, 2*cdf[tmin])
		level := 1 - s.Confidence
		excludes := s.Lo > 0 || s.Hi < 0
		if excludes != (p <= level+1e-12) {
			t.Fatalf("n=%d T+=%d p=%v level=%v: interval [%v, %v] excludes 0 = %v", n, tplus, p, level, s.Lo, s.Hi, excludes)
		}
	}
}

func TestPairedShiftRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		from, to []float64
		alpha    float64
	}{
		{[]float64{1, 2}, []float64{1}, 0.05},
		{nil, nil, 0.05},
		{[]float64{1}, []float64{0}, 0.05},
		{[]float64{1}, []float64{math.NaN()}, 0.05},
		{[]float64{1}, []float64{1}, 0},
	} {
		if _, err := PairedShift(c.from, c.to, c.alpha); err == nil {
			t.Errorf("PairedShift(%v, %v, %v): no error", c.from, c.to, c.alpha)
		}
	}
}

// TestPairedShiftCoverage: the interval covers the true shift at least
// 1 − α of the time (within simulation error), for normal and for
// heavy-tailed log-ratios.
func TestPairedShiftCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const trials = 3000
	for _, heavy := range []bool{false, true} {
		for _, n := range []int{6, 10, 20} {
			covered := 0
			for trial := 0; trial < trials; trial++ {
				from, to := make([]float64, n), make([]float64, n)
				for i := range from {
					e := 0.05 * rng.NormFloat64()
					if heavy && rng.Float64() < 0.1 {
						e *= 5 // one pair in ten from a much wider spread
					}
					from[i] = 1000 * math.Exp(0.2*rng.NormFloat64()) // shared by the pair
					to[i] = from[i] * 1.08 * math.Exp(e)
				}
				s, _ := PairedShift(from, to, 0.05)
				if s.Lo <= 0.08+1e-12 && 0.08-1e-12 <= s.Hi {
					covered++
				}
			}
			rate := float64(covered) / trials
			t.Logf("heavy tails %v, %d pairs: coverage %.4f", heavy, n, rate)
			if rate < 0.95-3*math.Sqrt(0.05*0.95/trials) {
				t.Errorf("heavy %v, n=%d: coverage %.4f under 95 %%", heavy, n, rate)
			}
		}
	}
}

func TestSignedRankNormalBeyondExact(t *testing.T) {
	// Just past the exact range, the normal rank lands next to the exact one.
	exactK, _ := signedRankRank(exactSidesMax, 0.05)
	cdf := signedRankCDF(exactSidesMax + 1)
	k := 0
	for 2*cdf[k] <= 0.05 {
		k++
	}
	normalK, cov := signedRankRank(exactSidesMax+1, 0.05)
	if d := normalK - k; d < -3 || d > 3 {
		t.Errorf("n=%d: normal rank %d, exact %d", exactSidesMax+1, normalK, k)
	}
	if cov < 0.945 || normalK <= exactK {
		t.Errorf("normal coverage %v, rank %d (exact at n-1: %d)", cov, normalK, exactK)
	}
}

func TestPairMatchesRounds(t *testing.T) {
	from := Side{Valid: true, Windows: []float64{1, 2, 3, 4}, Rounds: []int{1, 2, 4, 4}}
	to := Side{Valid: true, Windows: []float64{10, 30, 40, 50}, Rounds: []int{4, 3, 1, 5}}
	x, y, rounds := Pair(from, to)
	if !slices.Equal(rounds, []int{1, 4}) || !slices.Equal(x, []float64{1, 3}) || !slices.Equal(y, []float64{40, 10}) {
		t.Errorf("Pair = %v %v %v", x, y, rounds)
	}
}

func TestMinLevel(t *testing.T) {
	if got := Paired.MinLevel(6); got != 2.0/64 {
		t.Errorf("Paired.MinLevel(6) = %v", got)
	}
	if got := Independent.MinLevel(4); got != MinP(4, 4) {
		t.Errorf("Independent.MinLevel(4) = %v", got)
	}

}

// TestAdaptivePairedFalseCallRate simulates the adaptive rule (looks at the
// schedule of Looks) with the paired design on windows whose rounds share a drift of the host (a
// common factor on both sides of a round) and whose processes vary on
// their own: the A/A false-call rate stays at or under α, and the test
// prints the power to call a 5 % and a 10 % step, beside the independent
// design on the same windows.
func TestAdaptivePairedFalseCallRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	const trials = 1500
	const minR, maxR = 4, 12
	alpha, looks := map[Design][]float64{}, map[Design][]int{}
	for _, d := range []Design{Paired, Independent} {
		looks[d], alpha[d] = Looks(d, DefaultAlpha, minR, maxR)
	}
	run := func(d Design, shift, drift, noise float64) (wrong, right int, rounds float64) {
		for trial := 0; trial < trials; trial++ {
			var from, to Side
			from.Valid, to.Valid = true, true
			for r := 1; r <= maxR; r++ {
				host := math.Exp(drift * rng.NormFloat64())
				from.Windows = append(from.Windows, 1000*host*math.Exp(noise*rng.NormFloat64()))
				to.Windows = append(to.Windows, 1000*(1+shift)*host*math.Exp(noise*rng.NormFloat64()))
				from.Rounds, to.Rounds = append(from.Rounds, r), append(to.Rounds, r)
				if !slices.Contains(looks[d], r) {
					continue
				}
				v := DecideBy(d, from, to, DefaultMinEffect, LookLevel(looks[d], alpha[d], r))
				if v.Call == CallUndecided && r < maxR {
					continue
				}
				switch {
				case shift == 0 && (v.Call == CallGain || v.Call == CallLoss):
					wrong++
				case shift > 0 && v.Call == CallGain:
					right++
				case shift > 0 && v.Call == CallLoss:
					wrong++
				}
				rounds += float64(r)
				break
			}
		}
		return wrong, right, rounds / trials
	}
	for _, d := range []Design{Paired, Independent} {
		for _, drift := range []float64{0, 0.08} {
			wrong, _, rounds := run(d, 0, drift, 0.05)
			rate := float64(wrong) / trials
			t.Logf("%s, drift %.0f %%, noise 5 %%: A/A false calls %.4f, %.1f rounds on average", d, 100*drift, rate, rounds)
			if rate > DefaultAlpha+3*math.Sqrt(DefaultAlpha*(1-DefaultAlpha)/trials) {
				t.Errorf("%s drift %v: false-call rate %.4f above α", d, drift, rate)
			}
			for _, shift := range []float64{0.10, 0.20} {
				wrong, right, rounds := run(d, shift, drift, 0.05)
				t.Logf("  +%.0f %%: gain called in %.3f (wrong way %.4f), %.1f rounds on average", 100*shift, float64(right)/trials, float64(wrong)/trials, rounds)
			}
		}
	}
}
