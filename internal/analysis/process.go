package analysis

import (
	"fmt"

	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// ProcessCalls calls every command of a process suite against the first
// at each size, from the suite's measured runs (spawn.Run hands them over
// without calls): one spawn.Call per size and later command.
func ProcessCalls(res spawn.Result) []spawn.Call {
	if len(res.Commands) < 2 {
		return nil
	}
	var out []spawn.Call
	for _, size := range res.Sizes {
		base := processCell(res, res.Commands[0], size)
		for _, name := range res.Commands[1:] {
			out = append(out, processCall(res, base, processCell(res, name, size)))
		}
	}
	return out
}

// processCell is the suite's cell of one command at one size; a cell the
// suite did not measure is a zero Cell of that command and size (invalid).
func processCell(res spawn.Result, name string, size int) spawn.Cell {
	for _, c := range res.Cells {
		if c.Command == name && c.Size == size {
			return c
		}
	}
	return spawn.Cell{Command: name, Size: size}
}

// processWalls are the wall times in nanoseconds (as the cell summarises them) of a cell's measured runs,
// nil for a failed cell (its figures are dropped).
func processWalls(res spawn.Result, c spawn.Cell) []float64 {
	if c.Error != "" {
		return nil
	}
	var out []float64
	for _, s := range res.Samples {
		if s.Command == c.Command && s.Size == c.Size {
			out = append(out, float64(s.Wall))
		}
	}
	return out
}

// processCall decides one command against the first. Calls are for
// higher-is-better figures, so it decides on runs per second (the
// reciprocal of each wall time): a gain is a faster command. The estimate
// and interval are turned back into wall-time shifts.
func processCall(res spawn.Result, from, to spawn.Cell) spawn.Call {
	c := spawn.Call{Size: from.Size, From: from.Command, To: to.Command}
	v := stats.Decide(
		stats.Side{Valid: from.Error == "" && from.Wall.N > 0, Windows: reciprocals(processWalls(res, from))},
		stats.Side{Valid: to.Error == "" && to.Wall.N > 0, Windows: reciprocals(processWalls(res, to))},
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

// reciprocals returns 1 ÷ each value (a wall time to its rate);
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
