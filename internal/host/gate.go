package host

import (
	"context"
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/stats"
)

// DefaultGateMarginCores is added to the idle baseline to make the
// automatic gate's threshold: a quarter core above what the machine does at
// rest (T6), and never above BusyCores (T15).
const DefaultGateMarginCores = 0.25

// BusyCores is the foreign CPU above which a host counts as busy, and the
// highest threshold the automatic gate takes: a quarter core, or 10 % of
// the host's CPUs when that is more. A gate above it could let through
// windows that shared the machine with a sizeable foreign load, and on a
// small host one the window's own load can never leave room to cross (the
// 1.46-core gate of a busy 2-core start, docs/traps.md T15).
func BusyCores(hostCPUs int) float64 { return max(0.25, 0.1*float64(hostCPUs)) }

// BaselineQuantile is the quantile of the baseline's short steps that
// stands for the host at rest: a low one, so that a burst of a daemon
// during calibration does not raise the gate.
const BaselineQuantile = 0.25

// DefaultGateRetries is how many times a contended window is redone before
// it is kept and flagged contended.
const DefaultGateRetries = 3

// DefaultGateStep is the length of one foreign-CPU measurement while
// measuring the baseline or waiting for a quiet host.
const DefaultGateStep = 250 * time.Millisecond

// ForeignMeter measures the mean foreign CPU, in cores, over the next d:
// the host's busy CPU minus the processes the benchmark accounts for.
// proc.ForeignMeter builds one from the benchmark's process groups.
type ForeignMeter func(ctx context.Context, d time.Duration) (cores float64, err error)

// Baseline is the foreign CPU of the machine at rest, measured at the
// start of a run in short steps.
type Baseline struct {
	MeanCores float64 `json:"mean_cores"`
	MaxCores  float64 `json:"max_cores"` // the busiest step
	// LowCores is the BaselineQuantile of the steps: the figure the
	// automatic gate is set from (0 in journals from before it existed;
	// MeanCores is used then).
	LowCores float64       `json:"low_cores"`
	Duration time.Duration `json:"duration_ns"`
	Steps    int           `json:"steps"`
	// Waited is how long the run waited for a quiet host before this
	// baseline, when the first one found the host busy.
	Waited time.Duration `json:"waited_ns,omitempty"`
}

// Rest is the baseline's figure for the host at rest: LowCores, or
// MeanCores for a baseline given without steps (a test's, or one built by
// hand).
func (b Baseline) Rest() float64 {
	if b.Steps == 0 {
		return b.MeanCores
	}
	return b.LowCores
}

// Busy reports whether the host was busy at rest: its low quantile of
// foreign CPU above BusyCores.
func (b Baseline) Busy(hostCPUs int) bool { return b.Rest() > BusyCores(hostCPUs) }

// MeasureBaseline measures foreign CPU for d in steps of DefaultGateStep.
func MeasureBaseline(ctx context.Context, d time.Duration, m ForeignMeter) (Baseline, error) {
	var b Baseline
	var sum float64
	var steps []float64
	for b.Duration < d || b.Steps == 0 {
		step := min(DefaultGateStep, max(d-b.Duration, time.Millisecond))
		cores, err := m(ctx, step)
		if err != nil {
			return b, fmt.Errorf("measure the idle foreign CPU baseline: %w", err)
		}
		sum += cores * step.Seconds()
		b.MaxCores = max(b.MaxCores, cores)
		b.Duration += step
		b.Steps++
		steps = append(steps, cores)
	}
	b.MeanCores = sum / b.Duration.Seconds()
	b.LowCores, _ = stats.Quantile(steps, BaselineQuantile)
	return b, nil
}

// MeasureQuietBaseline measures the baseline for d; while the host is busy
// (Baseline.Busy), it measures again, for at most maxWait in all, and
// returns the last baseline with Waited set. The caller warns when the
// result is still busy.
func MeasureQuietBaseline(ctx context.Context, d, maxWait time.Duration, hostCPUs int, m ForeignMeter) (Baseline, error) {
	start := time.Now()
	for {
		b, err := MeasureBaseline(ctx, d, m)
		if err != nil || !b.Busy(hostCPUs) || time.Since(start) >= maxWait {
			if b.Steps > 0 && time.Since(start) > d+d/2 {
				b.Waited = time.Since(start) - b.Duration
			}
			return b, err
		}
	}
}

// Gate keeps measured windows away from a busy machine (trap T5): the run
// waits for a quiet host before a window, and judges each window by its
// mean foreign CPU, redoing it up to Retries times before keeping it
// flagged contended. It never waits without bound (trap T6).
type Gate struct {
	// ThresholdCores is the foreign CPU above which a window is contended.
	ThresholdCores float64 `json:"threshold_cores"`
	// Explicit is true when the user set the threshold.
	Explicit bool     `json:"explicit"`
	Baseline Baseline `json:"baseline"`
	Retries  int      `json:"retries"`
	// Step is the length of one measurement in WaitQuiet.
	Step  time.Duration `json:"step_ns"`
	meter ForeignMeter
}

// NewGate returns a gate whose threshold is explicitCores when it is
// above 0, else AutoThreshold. The warnings say when the machine is
// already busier at rest than the gate allows; they are to be printed and
// recorded, never waited on.
func NewGate(b Baseline, explicitCores float64, retries int, hostCPUs int, m ForeignMeter) (*Gate, []string) {
	g := &Gate{Baseline: b, Retries: max(retries, 0), Step: DefaultGateStep, meter: m}
	var warnings []string
	if explicitCores > 0 {
		g.ThresholdCores, g.Explicit = explicitCores, true
		if b.MeanCores >= explicitCores {
			warnings = append(warnings, fmt.Sprintf(
				"the contention gate of %.2f cores is below the machine's idle foreign CPU (%.2f cores over %s): most windows will be redone %d times and kept flagged contended; raise the gate or quiet the machine",
				explicitCores, b.MeanCores, b.Duration.Round(time.Millisecond), g.Retries))
		}
	} else {
		g.ThresholdCores = AutoThreshold(b, hostCPUs)
		if b.Busy(hostCPUs) {
			warnings = append(warnings, fmt.Sprintf(
				"the host was busy when the contention gate calibrated: other processes used %.2f cores at rest (the %.0fth percentile of %d steps over %s%s), more than %.2f; the gate is the absolute %.2f cores instead of rest + %.2f, so windows will wait, be redone and be kept flagged contended while the host stays busy: quiet the machine for figures that describe the stacks",
				b.Rest(), 100*BaselineQuantile, b.Steps, b.Duration.Round(time.Millisecond), waitedText(b.Waited), BusyCores(hostCPUs), g.ThresholdCores, DefaultGateMarginCores))
		}
	}
	return g, warnings
}

func waitedText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(", after waiting %s for quiet", d.Round(time.Second))
}

// AutoThreshold is the automatic gate's threshold: the baseline at rest
// plus DefaultGateMarginCores, capped at BusyCores. A busy host at
// calibration therefore gets the absolute BusyCores, never a gate widened
// by the load that happened to be running (trap T15). hostCPUs of 0 (not
// known) caps at a quarter core.
func AutoThreshold(b Baseline, hostCPUs int) float64 {
	return min(b.Rest()+DefaultGateMarginCores, BusyCores(hostCPUs))
}

// Quiet is what WaitQuiet saw.
type Quiet struct {
	// Quiet is true when a measurement came in under the threshold; false
	// when maxWait passed first and the window should go ahead anyway.
	Quiet  bool          `json:"quiet"`
	Waited time.Duration `json:"waited_ns"`
	// ForeignCores is the last measurement.
	ForeignCores float64 `json:"foreign_cores"`
	Steps        int     `json:"steps"`
}

// WaitQuiet measures foreign CPU in steps until one step is under the
// threshold or maxWait has passed (at most one step more). A maxWait of 0
// takes a single measurement.
func (g *Gate) WaitQuiet(ctx context.Context, maxWait time.Duration) (Quiet, error) {
	start := time.Now()
	var q Quiet
	for {
		cores, err := g.meter(ctx, g.Step)
		if err != nil {
			return q, fmt.Errorf("wait for a quiet host: %w", err)
		}
		q.Steps++
		q.ForeignCores = cores
		q.Waited = time.Since(start)
		if cores < g.ThresholdCores {
			q.Quiet = true
			return q, nil
		}
		if q.Waited >= maxWait {
			return q, nil
		}
	}
}

// Action is what to do with a finished window.
type Action int

const (
	// Accept keeps the window; nothing disturbed it.
	Accept Action = iota
	// Redo discards the window and measures it again.
	Redo
	// Keep keeps a disturbed window because the retry budget is spent;
	// the Verdict's flags say what disturbed it.
	Keep
)

func (a Action) String() string {
	switch a {
	case Accept:
		return "accept"
	case Redo:
		return "redo"
	case Keep:
		return "keep"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// MarshalText writes the action's name, for JSON.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads an action's name.
func (a *Action) UnmarshalText(b []byte) error {
	for _, c := range []Action{Accept, Redo, Keep} {
		if c.String() == string(b) {
			*a = c
			return nil
		}
	}
	return fmt.Errorf("unknown gate action %q", b)
}

// Verdict is the gate's judgement of one window.
type Verdict struct {
	Action    Action `json:"action"`
	Contended bool   `json:"contended"`
	Suspended bool   `json:"suspended"`
	Reason    string `json:"reason,omitempty"`
}

// Judge decides about a window from its mean foreign CPU and whether the
// machine was suspended during it (trap T7). attempt counts from 0: the
// window is redone while attempt < Retries, then kept and flagged.
func (g *Gate) Judge(attempt int, foreignCores float64, suspended bool) Verdict {
	v := Verdict{Contended: foreignCores >= g.ThresholdCores, Suspended: suspended}
	switch {
	case suspended:
		v.Reason = "the machine was suspended during the window"
	case v.Contended:
		v.Reason = fmt.Sprintf("foreign CPU %.2f cores reached the gate of %.2f cores", foreignCores, g.ThresholdCores)
	default:
		v.Action = Accept
		return v
	}
	if attempt < g.Retries {
		v.Action = Redo
		return v
	}
	v.Action = Keep
	v.Reason += fmt.Sprintf("; kept after %d attempts (the retry budget)", attempt+1)
	return v
}
