package stats

import "testing"

// point is a unit of count values at v.
func point(v float64, count int64) Dist { return Dist{Values: []float64{v}, Counts: []int64{count}} }

func TestPooledQuantileIntervalSeesAStallInAMinorityOfUnits(t *testing.T) {
	// Fifteen units of 1,000 requests: ten at 2 ms, five with a fifth of
	// their requests stalled at 300 ms. Each good unit's p99 is 2 ms, and
	// so is the median unit's; of all requests 6.7 % took 300 ms, so the
	// pooled p99 is 300 ms.
	var units []Dist
	for i := range 15 {
		if i%3 == 0 {
			units = append(units, Dist{Values: []float64{2000, 300_000}, Counts: []int64{800, 200}})
			continue
		}
		units = append(units, point(2000, 1000))
	}
	est, lo, hi, err := PooledQuantileInterval(units, 0.99, 0.975)
	if err != nil {
		t.Fatal(err)
	}
	if est != 300_000 || lo != 300_000 || hi != 300_000 {
		t.Errorf("pooled p99 %g (%g … %g); want 300 ms, its interval wholly above 25 ms", est, lo, hi)
	}
	// The median of the same units is 2 ms: a rule on it would pass.
	if m := PooledQuantile(units[1:3], 0.99); m != 2000 {
		t.Errorf("a good unit's p99 %g", m)
	}
}

func TestPooledQuantileIntervalCoversUnitSpread(t *testing.T) {
	// Units alike but for their level: 1 … 9 ms. The interval must hold
	// the estimate and lie within the units' range.
	var units []Dist
	for i := 1; i <= 9; i++ {
		units = append(units, point(float64(1000*i), 100))
	}
	est, lo, hi, err := PooledQuantileInterval(units, 0.5, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if est != 5000 || !(lo <= est && est <= hi) || lo < 1000 || hi > 9000 || lo == hi {
		t.Errorf("median %g (%g … %g)", est, lo, hi)
	}
	if _, _, _, err := PooledQuantileInterval(nil, 0.5, 0.95); err == nil {
		t.Error("no unit: want an error")
	}
	if _, _, _, err := PooledQuantileInterval(units, 1.5, 0.95); err == nil {
		t.Error("quantile 1.5: want an error")
	}
}
