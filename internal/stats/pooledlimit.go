package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// PooledQuantileInterval is the q-quantile of units' distributions merged
// (one unit a process, its windows' histograms merged) and a percentile
// bootstrap interval for it at confidence: units resampled with
// replacement, bootstrapResamples times, with a seed fixed by the data so
// that a report rebuilt from the same journal says the same. It is the
// one-sample form of the pooled call (the comment at the top of
// pooled.go): a latency limit is a property of every request the stack
// served, so a stall in a few units moves the estimate and widens the
// interval instead of vanishing behind the median unit.
func PooledQuantileInterval(units []Dist, q, confidence float64) (est, lo, hi float64, err error) {
	if len(units) == 0 {
		return 0, 0, 0, errors.New("pooled quantile: no unit")
	}
	if !(q > 0 && q < 1) || !(confidence > 0 && confidence < 1) {
		return 0, 0, 0, fmt.Errorf("pooled quantile: quantile %g or confidence %g is not in (0, 1)", q, confidence)
	}
	p := newPool(units)
	n := len(units)
	wt := make([]int, n)
	for i := range wt {
		wt[i] = 1
	}
	est = p.quantile(wt, q)
	if math.IsNaN(est) {
		return 0, 0, 0, errors.New("pooled quantile: the units hold no value")
	}
	seed := uint64(n)<<32 ^ math.Float64bits(est) ^ math.Float64bits(q)
	rng := rand.New(rand.NewPCG(seed, 0x1111))
	boot := make([]float64, 0, bootstrapResamples)
	for range bootstrapResamples {
		clear(wt)
		for range n {
			wt[rng.IntN(n)]++
		}
		if v := p.quantile(wt, q); !math.IsNaN(v) {
			boot = append(boot, v)
		}
	}
	if len(boot) == 0 {
		return est, math.Inf(-1), math.Inf(1), nil
	}
	slices.Sort(boot)
	k := int(math.Floor((1 - confidence) / 2 * float64(len(boot))))
	return est, boot[k], boot[len(boot)-1-k], nil
}
