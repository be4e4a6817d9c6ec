package stats

import (
	"fmt"
	"math"
)

// Call is the verdict on one step for one metric: what the layer did,
// decided from the effect's estimate and its confidence interval against
// the smallest effect the user cares about.
type Call string

// The calls. The metrics compared are higher-is-better (throughput,
// throughput per CPU-second), so a gain is a positive shift.
const (
	// CallGain: the interval excludes 0 and the estimate is at least the
	// minimum effect, upwards.
	CallGain Call = "gain"
	// CallLoss: the interval excludes 0 and the estimate is at least the
	// minimum effect, downwards.
	CallLoss Call = "loss"
	// CallSame: the whole interval lies within ± the minimum effect: any
	// difference there is smaller than what the user said matters.
	CallSame Call = "same"
	// CallUndecided: none of the above; more windows may decide it.
	CallUndecided Call = "undecided"
	// CallInvalid: a side is not valid (or has no positive values), so
	// there is nothing to decide.
	CallInvalid Call = "invalid"
)

// Calls lists every call, in the order reports count them.
var Calls = []Call{CallGain, CallLoss, CallSame, CallUndecided, CallInvalid}

// DefaultMinEffect is the minimum effect unless the protocol sets one: 5 %.
const DefaultMinEffect = 0.05

// MaxWindowsNeeded caps Verdict.WindowsNeeded: past it the answer is "more
// than this", shown as such.
const MaxWindowsNeeded = 1000

// Side is one end of a step: a cell, as far as comparing it goes.
type Side struct {
	// Valid is false when the cell is invalid or insufficient.
	Valid bool
	// Windows are the metric's values, one per counted window.
	Windows []float64
	// Rounds, for a paired comparison, are the windows' rounds (parallel
	// to Windows).
	Rounds []int
}

// Verdict is the decision on one step for one metric.
type Verdict struct {
	Call Call
	// Shift is the estimate and its interval; meaningful unless Call is
	// CallInvalid.
	Shift Shift
	// MinEffect and Alpha are what the call was decided with.
	MinEffect float64
	Alpha     float64
	// WindowsNeeded, for an undecided call, is the number of windows per
	// side that would likely decide it, from the samples' spread (see
	// windowsNeeded); 0 when it cannot be said (the spread is zero), and
	// MaxWindowsNeeded when it is more than that.
	WindowsNeeded int
	// Reason says in words why the call is what it is.
	Reason string
}

// Decide compares two sides of a step for one metric as independent
// samples: the Hodges–Lehmann shift from "from" to "to" at confidence
// 1 − alpha, called against minEffect (a fraction: 0.05 is 5 %).
func Decide(from, to Side, minEffect, alpha float64) Verdict {
	return DecideBy(Independent, from, to, minEffect, alpha)
}

// DecideBy compares two sides of a step for one metric under design d:
// Independent as Decide; Paired pairs the windows by round (Pair) and
// takes the paired shift (PairedShift).
func DecideBy(d Design, from, to Side, minEffect, alpha float64) Verdict {
	v := Verdict{Call: CallInvalid, MinEffect: minEffect, Alpha: alpha}
	if !from.Valid || !to.Valid {
		v.Reason = "a side is not valid"
		return v
	}
	var s Shift
	var err error
	x, y := from.Windows, to.Windows
	if d == Paired {
		x, y, _ = Pair(from, to)
		if len(x) == 0 {
			v.Call = CallUndecided
			v.Shift = Shift{Lo: -1, Hi: math.Inf(1), Confidence: 1}
			v.WindowsNeeded = windowsFloor(d, 0, alpha)
			v.Reason = "no round has a counted window on both sides, so there is no pair to compare"
			return v
		}
		s, err = PairedShift(x, y, alpha)
	} else {
		s, err = HodgesLehmann(x, y, alpha)
	}
	if err != nil {
		v.Reason = err.Error()
		return v
	}
	v.Shift = s
	v.Call = CallOf(s, minEffect)
	switch v.Call {
	case CallGain, CallLoss:
		v.Reason = fmt.Sprintf("the %.0f %% interval excludes 0 and the estimate reaches the minimum effect of %s", 100*s.Confidence, pct(minEffect))
	case CallSame:
		v.Reason = fmt.Sprintf("the whole %.0f %% interval lies within ±%s", 100*s.Confidence, pct(minEffect))
	case CallUndecided:
		v.WindowsNeeded = windowsNeeded(d, x, y, s, minEffect, alpha)
		switch {
		case !s.Bounded && d == Paired:
			v.Reason = fmt.Sprintf("too few rounds with both sides (%d) for any finite interval at α=%.2g", s.Pairs, alpha)
		case !s.Bounded:
			v.Reason = fmt.Sprintf("too few windows (%d and %d) for any finite interval at α=%.2g", s.N1, s.N2, alpha)
		case s.Lo > 0 || s.Hi < 0:
			v.Reason = fmt.Sprintf("the interval excludes 0 but reaches past ±%s on one side and not the other", pct(minEffect))
		default:
			v.Reason = fmt.Sprintf("the interval includes 0 and reaches past ±%s", pct(minEffect))
		}
	}
	return v
}

// CallOf applies the decision rule to a shift: gain or loss when the
// interval excludes 0 and |estimate| ≥ minEffect; same when the interval
// lies within [−minEffect, +minEffect]; undecided otherwise (always, for an
// unbounded interval).
func CallOf(s Shift, minEffect float64) Call {
	switch {
	case !s.Bounded:
		return CallUndecided
	case s.Lo > 0 && s.Estimate >= minEffect:
		return CallGain
	case s.Hi < 0 && s.Estimate <= -minEffect:
		return CallLoss
	case s.Lo >= -minEffect && s.Hi <= minEffect:
		return CallSame
	default:
		return CallUndecided
	}
}

// windowsNeeded estimates the windows per side (equal sides; pairs, for
// Paired) after which an undecided step would likely be decided. The
// interval's half-width on the log scale is taken as z·σ·√(2 ÷ n) for
// independent samples, with σ the pooled robust spread of the log values
// (1.4826 × the median absolute deviation of each side from its own
// median), and as z·σ_d ÷ √n for pairs, with σ_d the robust spread of the
// pairs' log-ratios — the normal-theory widths, which the Hodges–Lehmann
// intervals approach within a few percent. The target half-width is
// |estimate| when the estimate reaches the minimum effect (to exclude 0),
// else minEffect − |estimate| (to fit within ±minEffect). The answer is at
// least one more than the larger side now, and at least the smallest size
// with a finite interval.
func windowsNeeded(d Design, from, to []float64, s Shift, minEffect, alpha float64) int {
	var dev []float64
	factor := 2.0
	if d == Paired {
		factor = 1
		logs := make([]float64, len(from))
		for i := range from {
			logs[i] = math.Log(to[i]) - math.Log(from[i])
		}
		med, _ := Quantile(logs, 0.5)
		for _, l := range logs {
			dev = append(dev, math.Abs(l-med))
		}
	} else {
		for _, side := range [][]float64{from, to} {
			logs := make([]float64, len(side))
			for i, v := range side {
				logs[i] = math.Log(v)
			}
			med, _ := Quantile(logs, 0.5)
			for _, l := range logs {
				dev = append(dev, math.Abs(l-med))
			}
		}
	}
	mad, _ := Quantile(dev, 0.5)
	sigma := 1.4826 * mad
	est := math.Abs(math.Log1p(s.Estimate))
	target := est
	if est < math.Log1p(minEffect) {
		target = math.Log1p(minEffect) - est
	}
	floor := windowsFloor(d, max(s.N1, s.N2), alpha)
	if sigma == 0 {
		return floor
	}
	if target <= 0 {
		return MaxWindowsNeeded
	}
	z := normalQuantile(1 - alpha/2)
	n := factor * math.Pow(z*sigma/target, 2)
	if n >= MaxWindowsNeeded {
		return MaxWindowsNeeded
	}
	return max(floor, int(math.Ceil(n)))
}

// windowsFloor is the least a step with `have` windows a side can need:
// one more, and at least the smallest size whose interval is finite at
// alpha under design d.
func windowsFloor(d Design, have int, alpha float64) int {
	floor := have + 1
	for floor < MaxWindowsNeeded && d.MinLevel(floor) > alpha {
		floor++
	}
	return floor
}

func pct(f float64) string { return fmt.Sprintf("%g %%", math.Round(f*1000)/10) }
