package cost

import (
	"fmt"
	"math"
)

// DefaultLoadsRPS are the sustained loads the model prices by default.
var DefaultLoadsRPS = []float64{5_000, 20_000, 50_000, 100_000}

// Options are the model's assumptions.
type Options struct {
	// LoadsRPS are the sustained loads to price, in requests per second.
	LoadsRPS []float64
	// Mix weighs the cases of the traffic mix by name (share of requests).
	// Nil means equal weights over each stack's cases; a case left out of a
	// non-nil mix has weight 0.
	Mix map[string]float64
	// TargetUtilisation is the share of each vCPU the servers may use on
	// average, leaving headroom for peaks: 0.5.
	TargetUtilisation float64
	// RAMHeadroom multiplies a process's peak RSS to give it room: 1.5.
	RAMHeadroom float64
}

// DefaultOptions returns the model's default assumptions.
func DefaultOptions() Options {
	return Options{
		LoadsRPS:          append([]float64(nil), DefaultLoadsRPS...),
		TargetUtilisation: 0.5,
		RAMHeadroom:       1.5,
	}
}

// validate checks the options up front, all of them.
func (o Options) validate() error {
	var problems []string
	if len(o.LoadsRPS) == 0 {
		problems = append(problems, "no load to price")
	}
	for _, l := range o.LoadsRPS {
		if !(l > 0) || math.IsInf(l, 0) {
			problems = append(problems, fmt.Sprintf("load %v rps is not a positive number", l))
		}
	}
	if !(o.TargetUtilisation > 0 && o.TargetUtilisation <= 1) {
		problems = append(problems, fmt.Sprintf("target utilisation %v is outside (0, 1]", o.TargetUtilisation))
	}
	if !(o.RAMHeadroom >= 1) || math.IsInf(o.RAMHeadroom, 0) {
		problems = append(problems, fmt.Sprintf("RAM headroom %v is below 1", o.RAMHeadroom))
	}
	if o.Mix != nil {
		total := 0.0
		for name, w := range o.Mix {
			if !(w >= 0) || math.IsInf(w, 0) {
				problems = append(problems, fmt.Sprintf("traffic-mix weight of %q is %v; weights must be ≥ 0", name, w))
			}
			total += w
		}
		if !(total > 0) {
			problems = append(problems, "the traffic mix has no positive weight")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("cost model options: %v", problems)
	}
	return nil
}
