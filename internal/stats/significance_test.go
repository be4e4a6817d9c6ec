package stats

import (
	"math"
	"testing"
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
