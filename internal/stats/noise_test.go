package stats

import "testing"

func TestNoiseFloorUsesStackMeasuredMost(t *testing.T) {
	cells := []CellSpread{
		{Stack: "b", Valid: true, Windows: 5, Spread: 0.90, SpreadDefined: true},
		{Stack: "a", Valid: true, Windows: 5, Spread: 0.02, SpreadDefined: true},
		{Stack: "a", Valid: true, Windows: 5, Spread: 0.05, SpreadDefined: true},
		{Stack: "a", Valid: false, Windows: 5, Spread: 0.50, SpreadDefined: true}, // invalid: ignored
		{Stack: "a", Valid: true, Windows: 1, Spread: 0.40, SpreadDefined: true},  // one window: no spread
		{Stack: "a", Valid: true, Windows: 5, Spread: 0.03, SpreadDefined: true},
		{Stack: "a", Valid: true, Windows: 5, Spread: 0.70, SpreadDefined: false},
	}
	got := NoiseFloor(cells)
	want := Floor{Spread: 0.05, Stack: "a", Cells: 3, Known: true}
	if got != want {
		t.Errorf("NoiseFloor = %+v, want %+v", got, want)
	}
}

func TestNoiseFloorCountsOnlyValidWindows(t *testing.T) {
	cells := []CellSpread{
		{Stack: "a", Valid: false, Windows: 50, Spread: 0.01, SpreadDefined: true},
		{Stack: "a", Valid: true, Windows: 3, Spread: 0.01, SpreadDefined: true},
		{Stack: "b", Valid: true, Windows: 4, Spread: 0.08, SpreadDefined: true},
	}
	if got := NoiseFloor(cells); got.Stack != "b" || got.Spread != 0.08 {
		t.Errorf("NoiseFloor = %+v, want stack b with 0.08", got)
	}
}

func TestNoiseFloorTieGoesToFirstStack(t *testing.T) {
	cells := []CellSpread{
		{Stack: "x", Valid: true, Windows: 4, Spread: 0.06, SpreadDefined: true},
		{Stack: "y", Valid: true, Windows: 4, Spread: 0.01, SpreadDefined: true},
	}
	if got := NoiseFloor(cells); got.Stack != "x" || got.Spread != 0.06 {
		t.Errorf("NoiseFloor = %+v, want stack x with 0.06", got)
	}
}

func TestNoiseFloorUnknown(t *testing.T) {
	for _, cells := range [][]CellSpread{
		nil,
		{{Stack: "a", Valid: false, Windows: 5, Spread: 0.1, SpreadDefined: true}},
		{{Stack: "a", Valid: true, Windows: 1, Spread: 0, SpreadDefined: true}},
	} {
		if got := NoiseFloor(cells); got.Known || got.Spread != 0 || got.Cells != 0 {
			t.Errorf("NoiseFloor(%+v) = %+v, want unknown", cells, got)
		}
	}
}
