package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/perf/benchmath"
)

// bruteForceUCounts enumerates every subset of size n of n+m positions
// (the positions of the first sample in the pooled order) and counts the
// U statistic each gives: U = the number of (first, second) pairs with the
// second sample's element below the first's.
func bruteForceUCounts(n, m int) []float64 {
	counts := make([]float64, n*m+1)
	total := n + m
	for mask := 0; mask < 1<<total; mask++ {
		ones := 0
		for b := 0; b < total; b++ {
			if mask>>b&1 == 1 {
				ones++
			}
		}
		if ones != n {
			continue
		}
		u, seconds := 0, 0
		for b := 0; b < total; b++ {
			if mask>>b&1 == 1 {
				u += seconds
			} else {
				seconds++
			}
		}
		counts[u]++
	}
	return counts
}

func TestUCDFMatchesEnumeration(t *testing.T) {
	for n := 1; n <= 7; n++ {
		for m := 1; m <= 7; m++ {
			counts := bruteForceUCounts(n, m)
			total := 0.0
			for _, c := range counts {
				total += c
			}
			got := uCDF(n, m)
			acc := 0.0
			for u, c := range counts {
				acc += c
				if math.Abs(got[u]-acc/total) > 1e-12 {
					t.Fatalf("uCDF(%d, %d)[%d] = %v, enumeration %v", n, m, u, got[u], acc/total)
				}
			}
		}
	}
}

func TestUCDFLargeAgreesWithNormal(t *testing.T) {
	// At 60 a side the exact distribution and the normal approximation
	// (with continuity correction) agree closely in the lower tail.
	n, m := 60, 60
	cdf := uCDF(n, m)
	mn := float64(n * m)
	sd := math.Sqrt(mn * float64(n+m+1) / 12)
	for _, u := range []int{1200, 1400, 1500, 1600, 1800} {
		approx := normalCDF((float64(u) + 0.5 - mn/2) / sd)
		if math.Abs(cdf[u]-approx) > 0.002 {
			t.Errorf("P(U ≤ %d): exact %v, normal %v", u, cdf[u], approx)
		}
	}
	if last := cdf[len(cdf)-1]; math.Abs(last-1) > 1e-12 {
		t.Errorf("P(U ≤ mn) = %v, want 1", last)
	}
}

// naiveHL computes the Hodges–Lehmann interval the slow way: every
// pairwise log-ratio, sorted by insertion, the rank from enumerated U
// counts.
func naiveHL(from, to []float64, alpha float64) (est, lo, hi float64, bounded bool) {
	var d []float64
	for _, x := range from {
		for _, y := range to {
			d = append(d, math.Log(y/x))
		}
	}
	d = insertionSorted(d)
	mid := len(d) / 2
	med := d[mid]
	if len(d)%2 == 0 {
		med = (d[mid-1] + d[mid]) / 2
	}
	counts := bruteForceUCounts(len(from), len(to))
	total := 0.0
	for _, c := range counts {
		total += c
	}
	k, acc := 0, 0.0
	for k < len(counts) && 2*(acc+counts[k])/total <= alpha {
		acc += counts[k]
		k++
	}
	if k == 0 {
		return math.Exp(med) - 1, -1, math.Inf(1), false
	}
	return math.Exp(med) - 1, math.Exp(d[k-1]) - 1, math.Exp(d[len(d)-k]) - 1, true
}

func TestHodgesLehmannMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n, m := 1+rng.IntN(7), 1+rng.IntN(7)
		from, to := make([]float64, n), make([]float64, m)
		for i := range from {
			from[i] = 100 * math.Exp(rng.NormFloat64()*0.1)
		}
		shift := math.Exp(rng.NormFloat64() * 0.1)
		for i := range to {
			to[i] = 100 * shift * math.Exp(rng.NormFloat64()*0.1)
		}
		for _, alpha := range []float64{0.05, 0.1, 0.2} {
			s, err := HodgesLehmann(from, to, alpha)
			if err != nil {
				t.Fatal(err)
			}
			est, lo, hi, bounded := naiveHL(from, to, alpha)
			if s.Bounded != bounded || !close(s.Estimate, est) || (bounded && (!close(s.Lo, lo) || !close(s.Hi, hi))) {
				t.Fatalf("%v → %v at α=%g: got %+v, naive est %v [%v, %v] bounded %v", from, to, alpha, s, est, lo, hi, bounded)
			}
			if bounded && s.Confidence < 1-alpha {
				t.Fatalf("coverage %v below 1 − %g", s.Confidence, alpha)
			}
		}
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b)) }

// TestHodgesLehmannDualToUTest: the interval excludes 0 exactly when the
// exact two-sided Mann–Whitney test (benchmath's, untied samples) has
// p ≤ α at the interval's own attained level — the interval is the set of
// shifts the test does not reject.
func TestHodgesLehmannDualToUTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 400; trial++ {
		n, m := 3+rng.IntN(8), 3+rng.IntN(8)
		from, to := make([]float64, n), make([]float64, m)
		for i := range from {
			from[i] = 50 + rng.Float64()*10
		}
		d := rng.Float64()*8 - 4
		for i := range to {
			to[i] = 50 + d + rng.Float64()*10
		}
		s, err := HodgesLehmann(from, to, DefaultAlpha)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Bounded {
			continue
		}
		th := benchmath.Thresholds{CompareAlpha: DefaultAlpha}
		c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(from), &th), benchmath.NewSample(slices.Clone(to), &th))
		excludes := s.Lo > 0 || s.Hi < 0
		rejects := c.P <= 1-s.Confidence+1e-12
		if excludes != rejects {
			t.Fatalf("%v vs %v: interval [%v, %v] excludes 0 = %v, but U test p = %v against %v", from, to, s.Lo, s.Hi, excludes, c.P, 1-s.Confidence)
		}
	}
}

func TestHodgesLehmannHandComputed(t *testing.T) {
	// 4 vs 4 at α = 0.05: k = 1 (2·1/70 ≤ 0.05 < 2·2/70), so the interval
	// runs from the smallest to the largest of the 16 ratios, at coverage
	// 1 − 2/70.
	from := []float64{100, 100, 100, 100}
	to := []float64{110, 110, 110, 110}
	s, err := HodgesLehmann(from, to, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Bounded || !close(s.Estimate, 0.1) || !close(s.Lo, 0.1) || !close(s.Hi, 0.1) || !close(s.Confidence, 1-2.0/70) {
		t.Errorf("identical windows, +10 %%: %+v", s)
	}
	// 3 vs 3: no finite interval at 0.05 (smallest p is 0.1).
	s, _ = HodgesLehmann([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.05)
	if s.Bounded || s.Lo != -1 || !math.IsInf(s.Hi, 1) {
		t.Errorf("3 vs 3 at α=0.05 should have no finite interval: %+v", s)
	}
	// Scale invariance: the relative shift does not depend on the unit.
	a, _ := HodgesLehmann([]float64{10, 12, 11, 13, 12}, []float64{9, 10, 10, 11, 9}, 0.05)
	b, _ := HodgesLehmann([]float64{1000, 1200, 1100, 1300, 1200}, []float64{900, 1000, 1000, 1100, 900}, 0.05)
	if !close(a.Estimate, b.Estimate) || !close(a.Lo, b.Lo) || !close(a.Hi, b.Hi) {
		t.Errorf("scale changed the shift: %+v vs %+v", a, b)
	}
}

func TestHodgesLehmannRejectsBadInput(t *testing.T) {
	for _, c := range []struct{ from, to []float64 }{
		{nil, []float64{1}},
		{[]float64{1}, nil},
		{[]float64{0, 1}, []float64{1}},
		{[]float64{1}, []float64{-1}},
		{[]float64{math.NaN()}, []float64{1}},
		{[]float64{1}, []float64{math.Inf(1)}},
	} {
		if _, err := HodgesLehmann(c.from, c.to, 0.05); err == nil {
			t.Errorf("HodgesLehmann(%v, %v) gave no error", c.from, c.to)
		}
	}
	if _, err := HodgesLehmann([]float64{1}, []float64{1}, 0); err == nil {
		t.Error("alpha 0 gave no error")
	}
}

// TestHodgesLehmannCoverage draws many pairs of samples with a known
// shift and checks that the interval covers it at least as often as its
// stated confidence (within the simulation's own error).
func TestHodgesLehmannCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 2000
	for _, sizes := range [][2]int{{5, 5}, {8, 8}, {6, 10}} {
		covered, conf := 0, 0.0
		for trial := 0; trial < trials; trial++ {
			from, to := make([]float64, sizes[0]), make([]float64, sizes[1])
			for i := range from {
				from[i] = 1000 * math.Exp(0.05*rng.NormFloat64())
			}
			for i := range to {
				to[i] = 1000 * 1.07 * math.Exp(0.05*rng.NormFloat64())
			}
			s, _ := HodgesLehmann(from, to, 0.05)
			conf = s.Confidence
			if s.Lo <= 0.07 && 0.07 <= s.Hi {
				covered++
			}
		}
		rate := float64(covered) / trials
		// Three standard errors below the stated confidence.
		if se := math.Sqrt(conf * (1 - conf) / trials); rate < conf-3*se {
			t.Errorf("%v windows: covered the true +7 %% shift in %.3f of trials, stated confidence %.3f", sizes, rate, conf)
		}
	}
}

func TestIntervalRankNormalBeyondExact(t *testing.T) {
	// Just past the exact range, the normal rank is close to what the
	// exact distribution at the boundary gives, scaled.
	k, cov := intervalRank(exactSidesMax+1, exactSidesMax+1, 0.05)
	if k < 1 || cov < 0.94 || cov > 0.96 {
		t.Errorf("normal rank at %d a side: k=%d coverage %v", exactSidesMax+1, k, cov)
	}
	ke, cove := intervalRank(exactSidesMax, exactSidesMax, 0.05)
	if cove < 0.95 || math.Abs(float64(k-ke)) > float64(ke)/20 {
		t.Errorf("exact rank at %d: k=%d coverage %v; normal at +1: k=%d", exactSidesMax, ke, cove, k)
	}
}
