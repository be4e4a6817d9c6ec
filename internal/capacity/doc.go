// Package capacity finds the highest request rate a server sustains within
// a latency objective (an SLO such as p99 ≤ 20 ms): open-loop probes at
// chosen rates, latency corrected for coordinated omission, a geometric
// climb while the SLO holds, a bisection between the last pass and the
// first fail to a resolution, then confirmation windows at the rate found.
//
// It is a library: Search takes a Config and a Prober (the function that
// loads the target at one rate) and returns a Report; it reads no flags,
// prints nothing, and its decisions are pure functions of the probes'
// results, so they are tested with a fake Prober and a fake clock.
// LoadProber is the Prober over the load engine.
package capacity
