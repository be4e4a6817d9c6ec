package stats

import (
	"math/rand/v2"
	"testing"
)

func TestMedianIndexHandComputed(t *testing.T) {
	cases := []struct {
		values []float64
		want   int
	}{
		{nil, -1},
		{[]float64{42}, 0},
		{[]float64{10, 30, 20}, 2},
		// Even count: sorted 10 20 30 40, the lower middle (20) represents it.
		{[]float64{40, 10, 30, 20}, 3},
		{[]float64{2, 1}, 1},
		// Ties keep journal order: the second of four equal windows.
		{[]float64{5, 5, 5, 5}, 1},
		{[]float64{7, 3, 7, 7, 1}, 0},
	}
	for _, c := range cases {
		if got := MedianIndex(c.values); got != c.want {
			t.Errorf("MedianIndex(%v) = %d, want %d", c.values, got, c.want)
		}
	}
}

func TestMedianIndexMatchesNaiveReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		values := make([]float64, 1+r.IntN(10))
		for i := range values {
			values[i] = float64(r.IntN(4)) // many ties
		}
		if got, want := MedianIndex(values), naiveMedianIndex(values); got != want {
			t.Fatalf("MedianIndex(%v) = %d, naive %d", values, got, want)
		}
	}
}
