package analysis

import (
	"fmt"
	"slices"

	"github.com/stackbench/stackbench/internal/stats"
)

// Frozen decisions (issue 31, item 5; docs/statistics.md, "Adaptive
// rounds"). An adaptive run stops measuring a step at the look where it is
// decided. Were it judged again at every later look from the same windows,
// its call could change with no new data: a step called same because the
// family did not select it becomes a gain once other steps, measured on,
// raise the count selected. So a step's calls are frozen at the look
// after which the run measured no more pairs for it, and later looks
// judge only the open steps, their false-call family kept at its size
// (the frozen calls' p-values still count in it).

// frozenCall is one call of a stopped step, as it was at its look.
type frozenCall struct {
	verdict stats.Verdict
	change  Change
}

// frozen holds the frozen calls by their index among the family's pairs
// (callSteps: two per step's cells, then one per latency metric per
// step's latency cells).
type frozen map[int]frozenCall

// frozenCalls replays an adaptive run's looks before the one its calls
// are made at: at each, every step not yet frozen is called as the run
// called it there, and a step the run then measured no more (no window
// of round look+1 in both its cells; in either, for independent samples)
// keeps those calls. Nil for a run with fixed rounds or before its second
// look.
func frozenCalls(m *Result) frozen {
	ri := m.Header.Rounds
	if ri == nil || m.Header.BeforeFirstLook {
		return nil
	}
	callRound := ri.Measured
	if m.Header.CallsThroughRound > 0 {
		callRound = m.Header.CallsThroughRound
	}
	var fz frozen
	for _, look := range ri.Looks {
		if look >= callRound {
			break
		}
		steps, cells, latency := stepsThrough(m, look)
		// The routes' pairs are in the family at the look; a stopped
		// step's route calls stop with it (its routes are its windows).
		routes, at := routePairs(steps, cells, latency, m.Header.Cases)
		vs := callSteps(steps, cells, latency, routes, fz, m.Header.Calls, stats.Family(m.Header.Family), m.Header.Design, m.Header.MinEffect, ri.LookAlpha(look, m.Header.Alpha))
		base, k := len(stepMetrics)*len(cells), len(latencyMetrics)
		for i, s := range steps {
			if _, done := fz[2*i]; done || m.measuredAfter(s, look) {
				continue
			}
			if fz == nil {
				fz = frozen{}
			}
			note := fmt.Sprintf("; frozen at the look after round %d, after which the run measured this step no more", look)
			freeze := func(k int, c Change) {
				c.Reason += note
				fz[k] = frozenCall{verdict: vs[k], change: c}
			}
			freeze(2*i, s.Throughput)
			freeze(2*i+1, s.PerCPU)
			if latency != nil {
				for j, c := range []*Change{s.P50, s.P99, s.Cost} {
					if c != nil {
						freeze(base+k*i+j, *c)
					}
				}
			}
			routeBase := base + k*len(latency)
			for n, a := range at {
				if a.step == i {
					v := vs[routeBase+n]
					v.Reason += note
					fz[routeBase+n] = frozenCall{verdict: v}
				}
			}
		}
	}
	return fz
}

// measuredAfter reports whether the run measured the step's cells in the
// round after look: both of them for a paired design (a pair needs both
// windows of a round), either for independent samples. A stack's cell is
// measured in a round when its closed-loop cell or its latency cell has a
// window of that round: under closed_loop: first the closed-loop cells
// hold round 1 only, and the rounds after are the latency windows'.
func (m *Result) measuredAfter(s Step, look int) bool {
	inRound := func(w WindowFigures) bool { return w.Round == look+1 }
	has := func(stack string) bool {
		if c, ok := m.Cell(stack, s.Case, s.Concurrency); ok && slices.ContainsFunc(c.PerWindow, inRound) {
			return true
		}
		c, ok := m.LatencyCell(stack, s.Case, s.Concurrency)
		return ok && slices.ContainsFunc(c.PerWindow, inRound)
	}
	if m.Header.Design == stats.Paired {
		return has(s.From) && has(s.To)
	}
	return has(s.From) || has(s.To)
}
