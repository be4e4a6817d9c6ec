package stats

import (
	"math"
	"testing"
)

func TestRobustOfHandComputed(t *testing.T) {
	// Median 100; deviations 0, 2, 2, 4, 40 → MAD 2; CV 1.4826·2/100.
	r, err := RobustOf([]float64{100, 98, 102, 104, 60})
	if err != nil {
		t.Fatal(err)
	}
	if r.Median != 100 || r.MAD != 2 || math.Abs(r.CV-0.029652) > 1e-9 || !r.CVDefined {
		t.Errorf("%+v", r)
	}
	// The fence is 3.5 × 1.4826 × 2 = 10.38: only 60 is past it.
	want := []bool{false, false, false, false, true}
	for i := range want {
		if r.Outliers[i] != want[i] {
			t.Errorf("outliers %v, want %v", r.Outliers, want)
			break
		}
	}
	// One wild window moves the range-based spread, not the robust one.
	s, _ := Summarize([]float64{100, 98, 102, 104, 60})
	if s.Spread < 0.4 || r.CV > 0.03 {
		t.Errorf("range spread %v, robust CV %v", s.Spread, r.CV)
	}
}

func TestRobustOfSmallAndDegenerate(t *testing.T) {
	r, _ := RobustOf([]float64{5, 500})
	if r.Outliers[0] || r.Outliers[1] {
		t.Error("two values cannot have an outlier")
	}
	r, _ = RobustOf([]float64{0, 0, 0})
	if r.CVDefined {
		t.Error("a zero median has no relative dispersion")
	}
	if _, err := RobustOf(nil); err == nil {
		t.Error("no values gave no error")
	}
}
