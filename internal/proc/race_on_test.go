//go:build race

package proc

// raceEnabled: the race detector's shadow memory inflates the RSS of the
// helper children, so memory tests check only their lower bounds.
const raceEnabled = true
