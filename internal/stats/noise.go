package stats

// CellSpread is what NoiseFloor needs to know about one cell.
type CellSpread struct {
	// Stack names the cell's stack.
	Stack string
	// Valid is false when the cell is invalid (its windows failed validation).
	Valid bool
	// Windows is the number of windows the spread was computed over.
	Windows int
	// Spread and SpreadDefined are the cell's Summary.Spread and
	// Summary.SpreadDefined.
	Spread        float64
	SpreadDefined bool
}

// Floor is the noise floor of a run.
type Floor struct {
	// Spread is the floor: the largest relative spread among the counted
	// cells. Steps whose |change| is below it are noise.
	Spread float64
	// Stack is the stack measured most, whose cells set the floor.
	Stack string
	// Cells is the number of cells that were counted.
	Cells int
	// Known is false when no valid cell has two or more windows and a
	// defined spread; Spread is then 0 and no step can be called noise,
	// which the report must say.
	Known bool
}

// NoiseFloor returns the largest relative spread among the valid cells of
// the stack measured most. "Measured most" is the stack with the most
// windows in valid cells; a tie goes to the stack that appears first in
// cells. Cells with fewer than two windows or an undefined spread are not
// counted: one window has no spread to speak of.
func NoiseFloor(cells []CellSpread) Floor {
	windows := map[string]int{}
	var order []string
	for _, c := range cells {
		if !c.Valid {
			continue
		}
		if _, seen := windows[c.Stack]; !seen {
			order = append(order, c.Stack)
		}
		windows[c.Stack] += c.Windows
	}
	var f Floor
	for _, stack := range order {
		if windows[stack] > windows[f.Stack] || f.Stack == "" {
			f.Stack = stack
		}
	}
	for _, c := range cells {
		if c.Stack != f.Stack || !c.Valid || c.Windows < 2 || !c.SpreadDefined {
			continue
		}
		f.Cells++
		f.Known = true
		if c.Spread > f.Spread {
			f.Spread = c.Spread
		}
	}
	return f
}
