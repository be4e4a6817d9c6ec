package capacity

import (
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

// A search is resumable from its probe history: its decisions are a pure
// function of the verdicts (searcher), so an interrupted search given its
// probes back (Config.Past) takes the same steps through them, measuring
// nothing, and asks next for the probe it would have run next. The budget
// goes on from the past probes' wall time: a resumed search does not get
// a fresh one.

// WithResult returns p with the load result behind it, as a Past probe
// needs it: the figures at capacity merge the confirmation windows'
// histograms.
func (p Probe) WithResult(res *load.Result) Probe {
	p.result = res
	return p
}

// pastWall is the wall time the past probes took.
func pastWall(past []Probe) time.Duration {
	var d time.Duration
	for _, p := range past {
		d += time.Duration(p.WallSeconds * float64(time.Second))
	}
	return d
}

// replay takes the next past probe in place of measuring one. It must be
// the probe the search asks for (phase, rate and repeat): otherwise the
// history belongs to another configuration, and going on from it would
// mix two searches.
func (s *search) replay(phase string, rate float64, repeat bool) (Probe, error) {
	p := s.past[0]
	n := len(s.rep.Probes) + 1
	if p.Phase != phase || p.Repeat != repeat || (phase != PhaseEstimate && !sameRate(p.RateRPS, rate)) {
		s.rep.Status = StatusFailed
		return Probe{}, fmt.Errorf("resume: past probe %d is %s at %.3f req/s (repeat %v), but the search asks for %s at %.3f req/s (repeat %v): "+
			"the probes come from another configuration; start the search again", n, p.Phase, p.RateRPS, p.Repeat, phase, rate, repeat)
	}
	if p.result == nil {
		s.rep.Status = StatusFailed
		return Probe{}, fmt.Errorf("resume: past probe %d has no load result (Probe.WithResult)", n)
	}
	s.past = s.past[1:]
	p.Index = n
	wall := time.Duration(p.WallSeconds * float64(time.Second))
	s.overhead = max(wall-s.cfg.Warmup-s.cfg.Probe, 0)
	s.rep.Probes = append(s.rep.Probes, p)
	return p, nil
}

// sameRate compares a journaled rate with the one asked for: a rate that
// went through JSON comes back exactly, and the tolerance only absorbs a
// last-bit difference in the arithmetic that made it.
func sameRate(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-9*max(a, b)
}
