package process

import (
	"github.com/stackbench/stackbench/internal/stats"
)

// Call compares one command's wall times with the first command's at one
// size, with the statistics the report's steps use.
type Call struct {
	Size int    `json:"size"`
	From string `json:"from"`
	To   string `json:"to"`
	// Change is (to − from) ÷ from of the median wall times; Defined is
	// false when either cell failed.
	Change  float64 `json:"change"`
	Defined bool    `json:"defined"`
	// Verdict is the comparison's word (from internal/stats), and Detail
	// its test in words.
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}

// calls compares every command with the first at each size. The noise
// floor is the suite's own: the widest relative spread among the cells of
// the first command.
func calls(cells []Cell, sizes []int, names []string) []Call {
	if len(names) < 2 {
		return nil
	}
	var spreads []stats.CellSpread
	for _, c := range cells {
		spreads = append(spreads, stats.CellSpread{Stack: c.Command, Valid: c.Error == "", Windows: c.Wall.N,
			Spread: c.Wall.RelSpread, SpreadDefined: c.Wall.Median > 0})
	}
	floor := stats.NoiseFloor(spreads)
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
			out = append(out, compare(base, find(name, size), floor))
		}
	}
	return out
}

// compare is the one place that speaks to internal/stats' comparison API:
// when that API changes (bands giving way to other calls), only this
// function changes.
func compare(from, to Cell, floor stats.Floor) Call {
	c := Call{Size: from.Size, From: from.Command, To: to.Command}
	st := stats.Compare(
		stats.Side{Valid: from.Error == "" && from.Wall.N > 0, Median: from.Wall.Median, Windows: from.walls},
		stats.Side{Valid: to.Error == "" && to.Wall.N > 0, Median: to.Wall.Median, Windows: to.walls},
		floor, stats.DefaultAlpha)
	c.Change, c.Defined = st.Change, st.ChangeDefined
	c.Verdict = string(st.Band)
	if st.Band != stats.BandInvalid && st.Test.Significant {
		c.Verdict += ", significant"
	}
	c.Detail = st.Test.Verdict()
	return c
}
