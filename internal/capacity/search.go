package capacity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

// Prober loads the target for one probe. Search calls it one probe at a
// time; the engine's failed requests are data in the result, and an error
// stops the search.
type Prober interface {
	// Open loads the target at rateRPS in open loop: a warm-up, then the
	// measured window.
	Open(ctx context.Context, rateRPS float64, warmup, window time.Duration) (*load.Result, error)
	// Closed loads it in closed loop, to estimate a start rate.
	Closed(ctx context.Context, warmup, window time.Duration) (*load.Result, error)
}

// Search finds the capacity of the target p loads within cfg's SLO (see
// the package doc and docs/capacity.md). The report is returned with every
// probe tried even when an error stopped the search (a failed prober, a
// cancelled context); invalid cfg is a *ConfigError and no report.
func Search(ctx context.Context, cfg Config, p Prober) (*Report, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	s := &search{cfg: cfg, prober: p, start: cfg.Now(), rep: newReport(cfg), past: cfg.Past}
	s.start = s.start.Add(-pastWall(cfg.Past))
	err = s.run(ctx)
	s.rep.finish(cfg.Now().Sub(s.start))
	return s.rep, err
}

// search is one Search's state around the decision logic (searcher): the
// clock, the budget and the probes run.
type search struct {
	cfg    Config
	prober Prober
	start  time.Time
	rep    *Report
	// overhead is the last probe's time beyond its warm-up and window
	// (connecting, draining): part of the next probe's expected cost.
	overhead time.Duration
	// past are the Past probes not replayed yet.
	past []Probe
}

func (s *search) run(ctx context.Context) error {
	closedRPS := s.cfg.StartRPS
	s.rep.StartFrom = "given"
	if closedRPS == 0 {
		s.rep.StartFrom = "measured"
		if !s.fits() {
			s.rep.Status = StatusBudget
			return nil
		}
		p, err := s.probe(ctx, PhaseEstimate, 0, false)
		if err != nil {
			return err
		}
		if p.Successes == 0 {
			s.rep.Status = StatusFailed
			return fmt.Errorf("the closed-loop estimate got no success in %d attempts (%s): is the target up, and answering the expected status?", p.Attempts, p.Errors)
		}
		closedRPS = p.ThroughputRPS
	}
	s.rep.ClosedLoopRPS = closedRPS
	s.rep.StartRPS = s.cfg.StartFraction * closedRPS
	sr := newSearcher(s.cfg, s.rep.StartRPS)
	for {
		rate, phase, ok := sr.next()
		if !ok {
			s.rep.Status = sr.status
			return nil
		}
		if !s.fits() {
			s.rep.Status = StatusBudget
			return nil
		}
		repeat := sr.retried > 0
		p, err := s.probe(ctx, phase, rate, repeat)
		if err != nil {
			return err
		}
		sr.record(p.Pass)
	}
}

// fits reports whether one more probe, expected to take its warm-up and
// window and the last probe's overhead, ends within the budget.
func (s *search) fits() bool {
	if len(s.past) > 0 {
		return true // it was run, within the budget of its time
	}
	next := s.cfg.Warmup + s.cfg.Probe + s.overhead
	return s.cfg.Now().Sub(s.start)+next <= s.cfg.Budget
}

// probe runs, judges and records one probe.
func (s *search) probe(ctx context.Context, phase string, rate float64, repeat bool) (Probe, error) {
	if len(s.past) > 0 {
		return s.replay(phase, rate, repeat)
	}
	t0 := s.cfg.Now()
	var res *load.Result
	var err error
	if phase == PhaseEstimate {
		res, err = s.prober.Closed(ctx, s.cfg.Warmup, s.cfg.Probe)
	} else {
		res, err = s.prober.Open(ctx, rate, s.cfg.Warmup, s.cfg.Probe)
	}
	if err != nil {
		s.rep.Status = StatusFailed
		if ctx.Err() != nil {
			s.rep.Status = StatusInterrupted
		}
		var ce *load.ConfigError
		if errors.As(err, &ce) {
			return Probe{}, err
		}
		return Probe{}, fmt.Errorf("probe %d (%s at %.1f req/s): %w", len(s.rep.Probes)+1, phase, rate, err)
	}
	wall := s.cfg.Now().Sub(t0)
	s.overhead = max(wall-s.cfg.Warmup-s.cfg.Probe, 0)
	p := newProbe(res, phase, rate, s.cfg.SLO)
	p.Index = len(s.rep.Probes) + 1
	p.Repeat = repeat
	p.WallSeconds = wall.Seconds()
	if phase == PhaseEstimate {
		p.Pass = true // not judged: it only measures a start
	} else {
		judge(&p, s.cfg)
	}
	s.rep.Probes = append(s.rep.Probes, p)
	if s.cfg.OnProbe != nil {
		s.cfg.OnProbe(p)
	}
	return p, nil
}

// searcher is the search's decision logic, a pure function of the
// verdicts it is given: next names the next probe, record takes its
// verdict.
type searcher struct {
	cfg Config
	// lastPass and firstFail bracket the capacity during the climb and
	// the bisection; 0 is none yet.
	lastPass, firstFail float64
	rate                float64
	phase               string
	// confirmed counts the passes in a row at rate, in PhaseConfirm.
	confirmed int
	// retried counts the repeats of a failed probe at rate.
	retried int
	status  string // set when the search is over
}

func newSearcher(cfg Config, start float64) *searcher {
	return &searcher{cfg: cfg, rate: start, phase: PhaseClimb}
}

// next returns the next probe's rate and phase; ok is false when the
// search is over (status says how).
func (s *searcher) next() (rate float64, phase string, ok bool) {
	if s.status != "" {
		return 0, "", false
	}
	return s.rate, s.phase, true
}

// record takes the verdict of the probe next asked for. A failure is
// believed only once it has repeated Retries times at the same rate; a
// pass is believed at once.
func (s *searcher) record(pass bool) {
	if !pass && s.retried < s.cfg.Retries {
		s.retried++
		return
	}
	s.retried = 0
	switch s.phase {
	case PhaseClimb:
		if pass {
			s.lastPass = s.rate
			if s.firstFail == 0 {
				s.rate *= s.cfg.Growth
				return
			}
		} else {
			s.firstFail = s.rate
			if s.lastPass == 0 {
				s.down(s.rate / s.cfg.Growth)
				return
			}
		}
		s.narrow()
	case PhaseBisect:
		if pass {
			s.lastPass = s.rate
		} else {
			s.firstFail = s.rate
		}
		s.narrow()
	case PhaseConfirm:
		if pass {
			if s.confirmed++; s.confirmed >= s.cfg.Confirmations {
				s.status = StatusConfirmed
			}
			return
		}
		// A failed confirmation: this rate is not sustained after all;
		// step down by the resolution and confirm that.
		s.firstFail, s.confirmed = s.rate, 0
		s.down(s.rate * (1 - s.cfg.Resolution))
	}
}

// narrow bisects the bracket, or starts confirming its lower end once the
// bracket is within the resolution.
func (s *searcher) narrow() {
	if s.firstFail-s.lastPass <= s.cfg.Resolution*s.lastPass {
		s.phase, s.rate, s.confirmed = PhaseConfirm, s.lastPass, 0
		return
	}
	s.phase, s.rate = PhaseBisect, (s.lastPass+s.firstFail)/2
}

// down moves to a lower rate, unless it is under the floor.
func (s *searcher) down(rate float64) {
	if rate < s.cfg.MinRPS {
		s.status = StatusNoPass
		return
	}
	s.rate = rate
}
