package stats

import (
	"math"
	"testing"
)

func TestClassifyBoundaries(t *testing.T) {
	below := func(x float64) float64 { return math.Nextafter(x, 0) }
	cases := []struct {
		change, floor float64
		want          Band
	}{
		{0, 0.03, BandNoise},
		{below(0.03), 0.03, BandNoise},
		{0.03, 0.03, BandSmall}, // at the floor: not noise
		{-0.03, 0.03, BandSmall},
		{-below(0.03), 0.03, BandNoise},
		{below(0.10), 0.03, BandSmall},
		{0.10, 0.03, BandReal}, // exactly 10 %: real
		{-0.10, 0.03, BandReal},
		{2.5, 0.03, BandReal},
		{0.10, 0.15, BandNoise}, // a floor above 10 % swallows small
		{below(0.15), 0.15, BandNoise},
		{0.15, 0.15, BandReal},
		{0, 0, BandSmall}, // unknown floor: nothing is noise
		{0.001, 0, BandSmall},
	}
	for _, c := range cases {
		if got := Classify(c.change, c.floor); got != c.want {
			t.Errorf("Classify(%v, %v) = %q, want %q", c.change, c.floor, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	floor := Floor{Spread: 0.04, Stack: "a", Cells: 3, Known: true}
	a := Side{Valid: true, Median: 100, Windows: []float64{98, 100, 101, 99, 102}}
	b := Side{Valid: true, Median: 110, Windows: []float64{109, 110, 112, 108, 111}}
	st := Compare(a, b, floor, DefaultAlpha)
	if !st.ChangeDefined || st.Change != 0.1 || st.Band != BandReal {
		t.Errorf("100 → 110: %+v, want change 0.1, real", st)
	}
	if !st.Test.Significant || math.Abs(st.Test.P-2.0/252) > 1e-12 {
		t.Errorf("separated 5 vs 5 windows: test %+v, want p = 2/252, significant", st.Test)
	}

	back := Compare(b, a, floor, DefaultAlpha)
	if want := -10.0 / 110; back.Change != want || back.Band != BandSmall {
		t.Errorf("110 → 100: %+v, want change %v, small", back, want)
	}

	c := Side{Valid: true, Median: 103, Windows: []float64{97, 103, 104, 100, 105}}
	if st := Compare(a, c, floor, DefaultAlpha); st.Band != BandNoise {
		t.Errorf("100 → 103 under a 4 %% floor: band %q, want noise", st.Band)
	}
	if st := Compare(a, c, Floor{}, DefaultAlpha); st.Band != BandSmall {
		t.Errorf("100 → 103 with an unknown floor: band %q, want small", st.Band)
	}

	invalid := b
	invalid.Valid = false
	for _, pair := range [][2]Side{{a, invalid}, {invalid, a}, {{Valid: true, Median: 0, Windows: []float64{0, 0}}, a}} {
		st := Compare(pair[0], pair[1], floor, DefaultAlpha)
		if st.Band != BandInvalid || st.ChangeDefined {
			t.Errorf("Compare(%+v, %+v) = %+v, want invalid with no change", pair[0], pair[1], st)
		}
	}
}
