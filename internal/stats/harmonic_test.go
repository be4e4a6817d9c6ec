package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHarmonicMeanHandComputed(t *testing.T) {
	cases := []struct {
		values, weights []float64
		want            float64
	}{
		{[]float64{1000, 100}, []float64{1, 1}, 2 / (1.0/1000 + 1.0/100)}, // 181.8…, not 550
		{[]float64{60, 20}, []float64{3, 1}, 40},                          // 4 / (3/60 + 1/20)
		{[]float64{50}, []float64{2}, 50},
		{[]float64{40, 0, 10}, []float64{1, 0, 1}, 16}, // a zero-weight value is ignored, even 0
	}
	for _, c := range cases {
		got, err := HarmonicMean(c.values, c.weights)
		if err != nil {
			t.Fatalf("HarmonicMean(%v, %v): %v", c.values, c.weights, err)
		}
		if math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("HarmonicMean(%v, %v) = %v, want %v", c.values, c.weights, got, c.want)
		}
	}
}

func TestHarmonicMeanMatchesRepeatedValues(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		n := 1 + r.IntN(6)
		values, weights := make([]float64, n), make([]float64, n)
		var expanded []float64
		for i := range values {
			values[i] = 1 + 1000*r.Float64()
			weights[i] = float64(r.IntN(4))
			for range int(weights[i]) {
				expanded = append(expanded, values[i])
			}
		}
		got, err := HarmonicMean(values, weights)
		if len(expanded) == 0 {
			if err == nil {
				t.Fatalf("all-zero weights accepted")
			}
			continue
		}
		// Unweighted harmonic mean of the values repeated weight times.
		inv := 0.0
		for _, x := range expanded {
			inv += 1 / x
		}
		want := float64(len(expanded)) / inv
		if err != nil || math.Abs(got-want) > 1e-9*want {
			t.Fatalf("HarmonicMean(%v, %v) = %v, %v; reference %v", values, weights, got, err, want)
		}
	}
}

func TestHarmonicMeanRejectsBadInput(t *testing.T) {
	bad := []struct{ values, weights []float64 }{
		{[]float64{1, 2}, []float64{1}},
		{nil, nil},
		{[]float64{1, 2}, []float64{0, 0}},
		{[]float64{1, 2}, []float64{1, -1}},
		{[]float64{1, 2}, []float64{1, math.NaN()}},
		{[]float64{0, 2}, []float64{1, 1}},
		{[]float64{-3, 2}, []float64{1, 1}},
		{[]float64{math.Inf(1), 2}, []float64{1, 1}},
		{[]float64{math.NaN(), 2}, []float64{1, 1}},
	}
	for _, b := range bad {
		if _, err := HarmonicMean(b.values, b.weights); err == nil {
			t.Errorf("HarmonicMean(%v, %v) succeeded, want an error", b.values, b.weights)
		}
	}
}
