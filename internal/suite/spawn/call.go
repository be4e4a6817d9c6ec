package spawn

import (
	"fmt"

	"github.com/stackbench/stackbench/internal/stats"
)

// Call compares one command's wall times with the first command's at one
// size, with the calls the report's steps use (docs/statistics.md).
type Call struct {
	Size int    `json:"size"`
	From string `json:"from"`
	To   string `json:"to"`
	// Change is the Hodges–Lehmann estimate of the relative shift of the
	// wall times (−0.2 = 20 % faster); Defined is false when either cell
	// failed.
	Change  float64 `json:"change"`
	Defined bool    `json:"defined"`
	// Verdict is the call: gain (faster), loss (slower), same, undecided
	// or invalid; Detail the estimate and its interval in words.
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}

// calls compares every command with the first at each size.
func calls(cells []Cell, sizes []int, names []string) []Call {
	if len(names) < 2 {
		return nil
	}
	find := func(name string, size int) Cell {
		for _, c := range cells {
			if c.Command == name && c.Size == size {
				return c
			}
		}
		return Cell{}
	}
	var out []Call
	for _, size := range sizes {
		base := find(names[0], size)
		for _, name := range names[1:] {
			out = append(out, compare(base, find(name, size)))
		}
	}
	return out
}

// compare is the one place that speaks to internal/stats' comparison API.
// Calls are for higher-is-better figures, so it decides on runs per second
// (the reciprocal of each wall time): a gain is a faster command. The
// estimate and interval are turned back into wall-time shifts.
func compare(from, to Cell) Call {
	c := Call{Size: from.Size, From: from.Command, To: to.Command}
	v := stats.Decide(
		stats.Side{Valid: from.Error == "" && from.Wall.N > 0, Windows: reciprocals(from.walls)},
		stats.Side{Valid: to.Error == "" && to.Wall.N > 0, Windows: reciprocals(to.walls)},
		stats.DefaultMinEffect, stats.DefaultAlpha)
	c.Verdict = string(v.Call)
	if v.Call == stats.CallInvalid {
		c.Detail = v.Reason
		return c
	}
	c.Defined = true
	wall := func(rate float64) float64 { return 1/(1+rate) - 1 }
	c.Change = wall(v.Shift.Estimate)
	switch v.Call {
	case stats.CallGain:
		c.Verdict += " (faster)"
	case stats.CallLoss:
		c.Verdict += " (slower)"
	}
	if v.Shift.Bounded {
		// A rate's low end is the wall time's high end.
		c.Detail = fmt.Sprintf("wall time %+.1f %% (%+.1f … %+.1f %%, %.0f %% interval)", 100*c.Change, 100*wall(v.Shift.Hi), 100*wall(v.Shift.Lo), 100*v.Shift.Confidence)
	} else {
		c.Detail = fmt.Sprintf("wall time %+.1f %%, no finite interval with %d and %d runs", 100*c.Change, v.Shift.N1, v.Shift.N2)
	}
	return c
}

// reciprocals returns 1 ÷ each value (wall seconds to runs per second);
// a value that is not positive stays as it is, for Decide to refuse.
func reciprocals(values []float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = v
		if v > 0 {
			out[i] = 1 / v
		}
	}
	return out
}
