// Package stats summarises a cell's windows and compares two cells.
//
// It is pure: plain float64 slices in, plain structs out, no I/O and nothing
// of stackbench's own imported. The definitions used here (quantiles, the
// median window, the robust dispersion and its outlier fence, the
// Hodges–Lehmann shift and its exact interval, the calls, the split of α
// over an adaptive run's looks, the U test) are written out in
// docs/statistics.md; each is tested against a naive reference
// implementation, enumeration or simulation, and hand-computed cases.
package stats
