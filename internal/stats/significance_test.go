package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
)

func TestMinPHandComputed(t *testing.T) {
	cases := []struct {
		n, m int
		want float64
	}{
		{0, 3, 1},
		{1, 1, 1},       // 2/C(2,1) = 1
		{2, 2, 1.0 / 3}, // 2/C(4,2) = 2/6
		{2, 3, 0.2},     // 2/10
		{3, 3, 0.1},     // 2/20
		{3, 4, 2.0 / 35},
		{3, 5, 2.0 / 56},
		{4, 4, 2.0 / 70},
		{5, 5, 2.0 / 252},
		{1, 39, 0.05}, // 2/40: exactly alpha, so not below it
	}
	for _, c := range cases {
		if got := MinP(c.n, c.m); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.n, c.m, got, c.want)
		}
		if got := MinP(c.m, c.n); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.m, c.n, got, c.want)
		}
	}
}

func TestMinPMatchesBruteForce(t *testing.T) {
	for n := 1; n <= 6; n++ {
		for m := 1; m <= 6; m++ {
			if got, want := MinP(n, m), bruteForceMinP(n, m); math.Abs(got-want) > 1e-12 {
				t.Errorf("MinP(%d, %d) = %v, brute force %v", n, m, got, want)
			}
		}
	}
}

func TestMannWhitneyKnownSamples(t *testing.T) {
	cases := []struct {
		name              string
		a, b              []float64
		wantP             float64
		possible, signif  bool
		verdictStartsWith string
	}{
		{"2 vs 2 separated", []float64{1, 2}, []float64{3, 4}, 1.0 / 3, false, false, "too few windows"},
		{"3 vs 3 separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1, false, false, "too few windows"},
		{"4 vs 4 separated", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70, true, true, "p=0.0286 <"},
		// U1 = 1 (5 > 4): P(U ≤ 1) = 2/70, two-sided 4/70.
		{"4 vs 4 one swap", []float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 4.0 / 70, true, false, "p=0.0571 ≥"},
		{"5 vs 5 separated", []float64{10, 11, 12, 13, 14}, []float64{1, 2, 3, 4, 5}, 2.0 / 252, true, true, "p=0.00794 <"},
	}
	for _, c := range cases {
		s := MannWhitney(c.a, c.b, DefaultAlpha)
		if math.Abs(s.P-c.wantP) > 1e-12 || s.Possible != c.possible || s.Significant != c.signif {
			t.Errorf("%s: %+v, want p=%v possible=%v significant=%v", c.name, s, c.wantP, c.possible, c.signif)
		}
		if !strings.HasPrefix(s.Verdict(), c.verdictStartsWith) {
			t.Errorf("%s: verdict %q, want it to start with %q", c.name, s.Verdict(), c.verdictStartsWith)
		}
	}
}

func TestMannWhitneyMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		n, m := 1+r.IntN(6), 1+r.IntN(6)
		// Distinct values: a random permutation of 0..n+m-1.
		perm := r.Perm(n + m)
		a, b := make([]float64, n), make([]float64, m)
		for i := range a {
			a[i] = float64(perm[i])
		}
		for i := range b {
			b[i] = float64(perm[n+i])
		}
		s := MannWhitney(a, b, DefaultAlpha)
		if want := bruteForceUTest(a, b); math.Abs(s.P-want) > 1e-9 {
			t.Fatalf("MannWhitney(%v, %v).P = %v, brute force %v", a, b, s.P, want)
		}
		if s.P < s.MinP-1e-12 {
			t.Fatalf("P %v below MinP %v for %d vs %d", s.P, s.MinP, n, m)
		}
	}
}

func TestMannWhitneyWithTiesMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 300 {
		a, b := make([]float64, 1+r.IntN(6)), make([]float64, 1+r.IntN(6))
		for i := range a {
			a[i] = float64(r.IntN(5))
		}
		for i := range b {
			b[i] = float64(r.IntN(5))
		}
		s := MannWhitney(a, b, DefaultAlpha)
		if len(s.Warnings) > 0 && s.P == 1 {
			continue // every value equal: benchmath declines the test
		}
		if want := bruteForceUTest(a, b); math.Abs(s.P-want) > 1e-9 {
			t.Fatalf("MannWhitney(%v, %v).P = %v, brute force %v", a, b, s.P, want)
		}
	}
}

func TestMannWhitneyTiesHandComputed(t *testing.T) {
	cases := []struct {
		a, b  []float64
		wantP float64
	}{
		// go-moremath says 0.214 here. Midranks: 0s → 2, 1s → 5, 4s → 7.5;
		// a's sum to 12.5, and 7 of the 28 pairs of windows reach ≥ 12.5
		// ({7.5, 7.5} and 3 × 2 of {5, 7.5}) → 2 × 7/28.
		{[]float64{1, 4}, []float64{0, 0, 1, 1, 0, 4}, 0.5},
		// Midranks 3 and 1.5: pairs sum to 4.5, 4.5, 3 → 2 × min(3, 2)/3, capped.
		{[]float64{3, 2}, []float64{2}, 1},
		// Midrank sums of 2-subsets of {1.5, 1.5, 3, 4}: only {3, 4} reaches 7.
		{[]float64{5, 9}, []float64{1, 1}, 2.0 / 6},
	}
	for _, c := range cases {
		if got := MannWhitney(c.a, c.b, DefaultAlpha).P; math.Abs(got-c.wantP) > 1e-12 {
			t.Errorf("MannWhitney(%v, %v).P = %v, want %v", c.a, c.b, got, c.wantP)
		}
	}
}

// For equal sizes go-moremath's exact tied distribution is right, so it
// cross-checks exactTiedP beyond what enumeration can reach.
func TestExactTiedPMatchesBenchmathForEqualSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 100 {
		n := 7 + r.IntN(10)
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = float64(r.IntN(8))
			b[i] = float64(r.IntN(8) + r.IntN(3))
		}
		th := benchmath.Thresholds{CompareAlpha: DefaultAlpha}
		raw := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), &th), benchmath.NewSample(slices.Clone(b), &th))
		if got := exactTiedP(a, b); math.Abs(got-min(raw.P, 1)) > 1e-9 {
			t.Fatalf("exactTiedP(%v, %v) = %v, benchmath %v", a, b, got, raw.P)
		}
	}
}

func TestMannWhitneyDegenerate(t *testing.T) {
	equal := MannWhitney([]float64{3, 3, 3, 3}, []float64{3, 3, 3, 3}, DefaultAlpha)
	if equal.P != 1 || equal.Significant || len(equal.Warnings) == 0 {
		t.Errorf("all equal: %+v, want p=1, not significant, with a warning", equal)
	}
	empty := MannWhitney(nil, []float64{1, 2, 3}, DefaultAlpha)
	if empty.Possible || empty.Significant || empty.MinP != 1 {
		t.Errorf("empty side: %+v, want impossible", empty)
	}
}
