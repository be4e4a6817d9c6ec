package stats

import (
	"math"
	"slices"
	"testing"
)

func TestSummarizeOddCount(t *testing.T) {
	values := []float64{100, 90, 110, 95, 105}
	s, err := Summarize(values)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{N: 5, Median: 100, MedianIndex: 0, Min: 90, Max: 110, Q1: 95, Q3: 105, IQR: 10, Spread: 0.2, SpreadDefined: true}
	if s != want {
		t.Errorf("Summarize(%v) = %+v, want %+v", values, s, want)
	}
}

func TestSummarizeEvenCountUsesOneWindow(t *testing.T) {
	values := []float64{100, 80, 120, 90}
	before := slices.Clone(values)
	s, err := Summarize(values)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted 80 90 100 120: the median window is the 90 (index 3), not 95.
	if s.Median != 90 || s.MedianIndex != 3 {
		t.Errorf("median = %v at %d, want 90 at 3", s.Median, s.MedianIndex)
	}
	if s.Q1 != 87.5 || s.Q3 != 105 || s.IQR != 17.5 {
		t.Errorf("quartiles = %v, %v (IQR %v), want 87.5, 105 (17.5)", s.Q1, s.Q3, s.IQR)
	}
	if want := 40.0 / 90; math.Abs(s.Spread-want) > 1e-15 || !s.SpreadDefined {
		t.Errorf("spread = %v (%v), want %v", s.Spread, s.SpreadDefined, want)
	}
	if !slices.Equal(values, before) {
		t.Errorf("Summarize modified its input")
	}
}

func TestSummarizeSpreadUndefinedAtZeroMedian(t *testing.T) {
	s, err := Summarize([]float64{0, 0, 5})
	if err != nil {
		t.Fatal(err)
	}
	if s.SpreadDefined || s.Spread != 0 {
		t.Errorf("spread = %v defined=%v, want undefined for a zero median", s.Spread, s.SpreadDefined)
	}
	one, err := Summarize([]float64{7})
	if err != nil {
		t.Fatal(err)
	}
	if one.Spread != 0 || !one.SpreadDefined || one.Median != 7 || one.IQR != 0 {
		t.Errorf("one window: %+v", one)
	}
}

func TestSummarizeRejectsBadInput(t *testing.T) {
	for _, v := range [][]float64{nil, {1, math.NaN()}, {math.Inf(-1)}} {
		if _, err := Summarize(v); err == nil {
			t.Errorf("Summarize(%v) succeeded, want an error", v)
		}
	}
}
