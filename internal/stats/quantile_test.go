package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantileHandComputed(t *testing.T) {
	cases := []struct {
		values []float64
		p      float64
		want   float64
	}{
		{[]float64{1, 2, 3, 4}, 0.25, 1.75},
		{[]float64{4, 3, 2, 1}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4}, 0.75, 3.25},
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{90, 95, 100, 105, 110}, 0.25, 95},
		{[]float64{80, 90, 100, 120}, 0.75, 105},
		{[]float64{7}, 0.3, 7},
		{[]float64{5, 1, 9}, 0, 1},
		{[]float64{5, 1, 9}, 1, 9},
	}
	for _, c := range cases {
		got, err := Quantile(c.values, c.p)
		if err != nil {
			t.Fatalf("Quantile(%v, %v): %v", c.values, c.p, err)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.values, c.p, got, c.want)
		}
	}
}

func TestQuantileMatchesNaiveReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		values := make([]float64, 1+r.IntN(12))
		for i := range values {
			values[i] = float64(r.IntN(50)) + r.Float64()
		}
		before := slices.Clone(values)
		p := r.Float64()
		if r.IntN(4) == 0 {
			p = float64(r.IntN(5)) / 4
		}
		got, err := Quantile(values, p)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveQuantile(values, p)
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("Quantile(%v, %v) = %v, naive %v", values, p, got, want)
		}
		if !slices.Equal(values, before) {
			t.Fatalf("Quantile modified its input: %v, was %v", values, before)
		}
	}
}

func TestQuantileRejectsBadInput(t *testing.T) {
	bad := []struct {
		values []float64
		p      float64
	}{
		{nil, 0.5},
		{[]float64{1, math.NaN()}, 0.5},
		{[]float64{1, math.Inf(1)}, 0.5},
		{[]float64{1, 2}, -0.01},
		{[]float64{1, 2}, 1.01},
		{[]float64{1, 2}, math.NaN()},
	}
	for _, b := range bad {
		if _, err := Quantile(b.values, b.p); err == nil {
			t.Errorf("Quantile(%v, %v) succeeded, want an error", b.values, b.p)
		}
	}
}
