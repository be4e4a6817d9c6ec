package cost

import (
	"fmt"
	"maps"
	"slices"

	"github.com/stackbench/stackbench/internal/stats"
)

// CaseMeasure is one case of one stack at the reference concurrency, as
// measured: the figures of the cell's median window (one window, so the
// throughput and the CPU belong together).
type CaseMeasure struct {
	Case string
	// Valid is false when the cell is invalid; such a case cannot enter a
	// traffic mix.
	Valid bool
	// RPS is the median window's throughput (expected responses per second).
	RPS float64
	// Cores is the server's CPU in the same window (CPU-seconds per second).
	Cores float64
	// PeakRSSBytes is the server tree's peak RSS in the cell.
	PeakRSSBytes float64
}

// StackMeasure is what the model needs from one stack.
type StackMeasure struct {
	Stack string
	Cases []CaseMeasure
}

// Capacity is a stack's capacity as the model sees it.
type Capacity struct {
	Stack string
	// Cases and Weights are the traffic mix used (cases with weight > 0).
	Cases   []string
	Weights []float64
	// RPSPerCore is the weighted harmonic mean of RPS ÷ Cores over the mix:
	// the requests one fully busy core serves when the traffic is the mix.
	RPSPerCore float64
	// PeakRSSBytes is the highest peak RSS among the mix's cases, and
	// ProcessRAMBytes is PeakRSSBytes × Options.RAMHeadroom: the memory one
	// server process is given.
	PeakRSSBytes    float64
	ProcessRAMBytes float64
	// Problem says why there is no estimate for this stack; empty when
	// there is one.
	Problem string
}

// capacity derives a stack's Capacity over the mix (nil mix: equal
// weights over the stack's cases). Problems are reported in Capacity, not
// as errors: one stack without an estimate must not hide the others.
func capacity(s StackMeasure, mix map[string]float64, headroom float64) Capacity {
	c := Capacity{Stack: s.Stack}
	byCase := map[string]CaseMeasure{}
	for _, m := range s.Cases {
		byCase[m.Case] = m
	}
	for _, name := range mixCases(s, mix) {
		w := 1.0
		if mix != nil {
			w = mix[name]
		}
		if w == 0 {
			continue
		}
		m, ok := byCase[name]
		switch {
		case !ok:
			c.Problem = fmt.Sprintf("case %q of the traffic mix was not measured for this stack", name)
		case !m.Valid:
			c.Problem = fmt.Sprintf("case %q is invalid, so the mix has no capacity to rest on", name)
		case !(m.RPS > 0):
			c.Problem = fmt.Sprintf("case %q served no requests (%v rps)", name, m.RPS)
		case !(m.Cores > 0):
			c.Problem = fmt.Sprintf("case %q has no server CPU measured (%v cores)", name, m.Cores)
		case !(m.PeakRSSBytes > 0):
			c.Problem = fmt.Sprintf("case %q has no peak RSS measured", name)
		}
		if c.Problem != "" {
			return c
		}
		c.Cases = append(c.Cases, name)
		c.Weights = append(c.Weights, w)
		c.PeakRSSBytes = max(c.PeakRSSBytes, m.PeakRSSBytes)
	}
	if len(c.Cases) == 0 {
		c.Problem = "no measured case has a weight in the traffic mix"
		return c
	}
	rates := make([]float64, len(c.Cases))
	for i, name := range c.Cases {
		rates[i] = byCase[name].RPS / byCase[name].Cores
	}
	hm, err := stats.HarmonicMean(rates, c.Weights)
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	c.RPSPerCore = hm
	c.ProcessRAMBytes = c.PeakRSSBytes * headroom
	return c
}

// mixCases lists the cases to weigh: the stack's own cases in order, then
// any case the mix names that the stack did not measure.
func mixCases(s StackMeasure, mix map[string]float64) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range s.Cases {
		if !seen[m.Case] {
			seen[m.Case] = true
			out = append(out, m.Case)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(mix)) {
		if !seen[name] {
			out = append(out, name)
		}
	}
	return out
}
