// Package stats summarises a cell's windows and compares two cells.
//
// It is pure: plain float64 slices in, plain structs out, no I/O and nothing
// of stackbench's own imported. The definitions used here (quantiles, the
// median window, relative spread, noise floor, bands, the U test) are written
// out in docs/statistics.md; each is tested against a naive reference
// implementation and hand-computed cases.
package stats
