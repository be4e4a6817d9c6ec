package stats

import (
	"fmt"
	"math"
	"strconv"
)

// Call is the verdict on one step for one metric: what the layer did,
// decided from the effect's estimate and its confidence interval against
// the smallest effect the user cares about.
type Call string

// The calls. The metrics compared are higher-is-better (throughput,
// throughput per CPU-second), so a gain is a positive shift. A call reads
// the interval alone, never the point estimate, and treats both directions
// alike on the log scale: ±δ is ±log(1 + minimum effect), so a step A→B of
// +5 % and its reverse B→A of −4.76 % get the same call.
const (
	// CallGain: the interval lies wholly above 0 (its Size says whether
	// it also lies past +δ).
	CallGain Call = "gain"
	// CallLoss: the interval lies wholly below 0.
	CallLoss Call = "loss"
	// CallSame: the interval at 1 − 2α lies wholly within ±δ (two
	// one-sided tests at α each, Schuirmann's TOST), and the step is not
	// a gain or a loss (its 1 − α interval includes 0, or false-call
	// control does not select it): any difference there is smaller than
	// what the user said matters. Same is each step's own test at α,
	// outside the family's control of false gains and losses.
	CallSame Call = "same"
	// CallUndecided: the interval includes 0 and reaches past ±δ; more
	// windows may decide it.
	CallUndecided Call = "undecided"
	// CallInvalid: a side is not valid (or has no positive values), so
	// there is nothing to decide.
	CallInvalid Call = "invalid"
	// CallNotCalled: a metric the run does not call (protocol calls:):
	// its estimate and interval are shown, at α on their own, and it is
	// neither a gain, a loss nor same, nor in the false-call family.
	CallNotCalled Call = "not called"
)

// Size qualifies a gain or a loss by where its interval lies against ±δ.
type Size string

const (
	// SizeLarge: the whole interval lies past ±δ: at least the minimum
	// effect.
	SizeLarge Size = "at least"
	// SizeSmall: the whole interval lies within ±δ: real, but smaller
	// than the minimum effect.
	SizeSmall Size = "small"
	// SizeUnknown: the interval reaches both inside and past ±δ.
	SizeUnknown Size = ""
)

// Calls lists every call, in the order reports count them.
var Calls = []Call{CallGain, CallLoss, CallSame, CallUndecided, CallInvalid, CallNotCalled}

// DefaultMinEffect is the minimum effect unless the protocol sets one: 5 %.
const DefaultMinEffect = 0.05

// PowerTarget is the probability with which WindowsNeeded windows would
// decide an undecided step: 80 %.
const PowerTarget = 0.8

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
	// Dists, for a call on a pooled quantile (DecidePooled), are the
	// windows' latency distributions, parallel to Windows and Rounds.
	Dists []Dist
}

// Verdict is the decision on one step for one metric.
type Verdict struct {
	Call Call
	// Shift is the estimate and its interval; meaningful unless Call is
	// CallInvalid.
	Shift Shift
	// Size qualifies a gain or a loss (SizeOf); empty otherwise.
	Size Size
	// FamilySize and FamilySelected, under FamilyRun, are the number of
	// calls false calls were controlled over and how many of them
	// Benjamini–Hochberg selected; 0 otherwise.
	FamilySize, FamilySelected int
	// MinEffect and Alpha are what the call was decided with.
	MinEffect float64
	Alpha     float64
	// WindowsNeeded, for an undecided call, is the number of windows per
	// side (pairs, for Paired) with which it would be decided in 80 % of
	// runs, from the samples' spread (see windowsNeeded); 0 when it cannot
	// be said (the spread is zero), and MaxWindowsNeeded when it is more
	// than that.
	WindowsNeeded int
	// sameShift is the interval at 1 − 2α (SameLevel), the one a same
	// call reads; Bounded is false when it could not be computed. A same
	// call shows it as its Shift.
	sameShift Shift
	// changeShift is the interval at 1 − α, which a gain or a loss
	// reads (Shift but for a same call).
	changeShift Shift
	// PairedSD, for Paired with MinPairsForSpread pairs or more, is the
	// step's paired noise: the robust standard deviation of the pairs'
	// log-ratios (logSpread), the spread its interval was built from; 0
	// otherwise.
	PairedSD float64
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
	}
	at := func(level float64) (Shift, error) {
		if d == Paired {
			return PairedShift(x, y, level)
		}
		return HodgesLehmann(x, y, level)
	}
	s, err := at(alpha)
	if err != nil {
		v.Reason = err.Error()
		return v
	}
	if d == Paired && len(x) >= MinPairsForSpread {
		v.PairedSD = logSpread(Paired, x, y)
	}
	v.decide(s, at, minEffect, alpha)
	level := fmt.Sprintf("%s %%", trimPct(100*v.Shift.Confidence))
	switch v.Call {
	case CallGain, CallLoss:
		v.Reason = fmt.Sprintf("the %s interval excludes 0", level)
		switch v.Size {
		case SizeLarge:
			v.Reason += fmt.Sprintf(" and lies wholly past ±%s", pct(minEffect))
		case SizeSmall:
			v.Reason += fmt.Sprintf(" and lies wholly within ±%s: real but smaller than the minimum effect", pct(minEffect))
		}
	case CallSame:
		v.Reason = fmt.Sprintf("the whole %s interval lies within ±%s (two one-sided tests at α=%.2g)", level, pct(minEffect), alpha)
	case CallUndecided:
		v.WindowsNeeded = windowsNeeded(d, x, y, s, minEffect, alpha, SameLevel(alpha))
		switch {
		case !s.Bounded && d == Paired:
			v.Reason = fmt.Sprintf("too few rounds with both sides (%d) for any finite interval at α=%.2g", s.Pairs, alpha)
		case !s.Bounded:
			v.Reason = fmt.Sprintf("too few windows (%d and %d) for any finite interval at α=%.2g", s.N1, s.N2, alpha)
		default:
			v.Reason = fmt.Sprintf("the %s interval includes 0 and reaches past ±%s, and the %s interval is not within it", level, pct(minEffect), levelOf(v.sameShift))
		}
	}
	return v
}

// ChangeShift is the interval at 1 − α, which a gain or a loss reads: the
// Shift of every call but same, whose Shift is the 1 − 2α interval.
func (v Verdict) ChangeShift() Shift { return v.changeShift }

// SameLevel is the α of the interval a same call reads when the run
// decides at alpha: 2α, the 1 − 2α interval (90 % at α = 0.05). A step is
// the same as its neighbour when two one-sided tests at α each reject a
// change of δ or more in either direction (Schuirmann's TOST), which is
// that interval lying within ±δ; a gain or a loss still needs the 1 − α
// interval clear of 0. Capped at 0.5.
func SameLevel(alpha float64) float64 { return min(2*alpha, 0.5) }

// Within reports whether a bounded interval lies wholly within ±δ (δ =
// log(1 + minEffect), on the log scale).
func Within(s Shift, minEffect float64) bool {
	delta := math.Log1p(minEffect)
	return s.Bounded && math.Log1p(s.Lo) >= -delta && math.Log1p(s.Hi) <= delta
}

// decide applies the decision rule to s, the interval at alpha, and the
// interval at SameLevel(alpha) that at computes: a gain or a loss when s
// excludes 0 (shown with s); same when the 1 − 2α interval lies within ±δ
// (shown with it); undecided otherwise (shown with s). It sets Shift,
// sameShift, Call and Size.
func (v *Verdict) decide(s Shift, at func(level float64) (Shift, error), minEffect, alpha float64) {
	v.Shift, v.changeShift = s, s
	if eq, err := at(SameLevel(alpha)); err == nil {
		v.sameShift = eq
	}
	v.Call = CallOf(s, minEffect)
	switch {
	case v.Call == CallGain || v.Call == CallLoss:
	case Within(v.sameShift, minEffect):
		v.Call, v.Shift = CallSame, v.sameShift
	case v.Call == CallSame:
		// Within ±δ at 1 − α already (the 1 − 2α interval could not be
		// computed): same all the more.
	default:
		v.Call = CallUndecided
	}
	v.Size = SizeOf(v.Call, v.Shift, minEffect)
}

// levelOf names an interval's level: "90 %", or "1 − 2α" when it has none.
func levelOf(s Shift) string {
	if !s.Bounded {
		return "1 − 2α"
	}
	return fmt.Sprintf("%s %%", trimPct(100*s.Confidence))
}

// CallOf classifies one interval: gain when it lies wholly above 0, loss
// when wholly below, same when it includes 0 and lies within ±δ (δ =
// log(1 + minEffect) on the log scale), undecided otherwise (always, for an
// unbounded interval). The estimate plays no part. A step's call reads two
// intervals (Verdict.decide): this one's gain or loss at 1 − α, and its
// same at 1 − 2α.
func CallOf(s Shift, minEffect float64) Call {
	lo, hi, delta := math.Log1p(s.Lo), math.Log1p(s.Hi), math.Log1p(minEffect)
	switch {
	case !s.Bounded:
		return CallUndecided
	case s.Lo > 0:
		return CallGain
	case s.Hi < 0:
		return CallLoss
	case lo >= -delta && hi <= delta:
		return CallSame
	default:
		return CallUndecided
	}
}

// SizeOf qualifies a gain or a loss: SizeLarge when the whole interval lies
// past δ in its direction, SizeSmall when it lies within ±δ, SizeUnknown
// when it straddles δ (or the call is neither gain nor loss).
func SizeOf(c Call, s Shift, minEffect float64) Size {
	lo, hi, delta := math.Log1p(s.Lo), math.Log1p(s.Hi), math.Log1p(minEffect)
	switch {
	case c == CallGain && lo >= delta, c == CallLoss && hi <= -delta:
		return SizeLarge
	case c == CallGain && hi <= delta, c == CallLoss && lo >= -delta:
		return SizeSmall
	}
	return SizeUnknown
}

// trimPct prints a confidence in percent with at most two decimals and no
// trailing zeros: 97.5, 95, 99.55.
func trimPct(p float64) string {
	return strconv.FormatFloat(math.Floor(p*100+1e-9)/100, 'f', -1, 64)
}

// windowsNeeded estimates the windows per side (equal sides; pairs, for
// Paired) with which an undecided step would be decided in 80 % of runs
// (PowerTarget), as the smaller of the two ways a step is decided: its
// interval at alphaExclude leaving 0 (a gain or a loss; under false-call
// control, the level at which the family would select one more call), or
// its interval at alphaSame fitting within ±δ (same). The interval's
// half-width on the log scale is taken as z·σ·√(2 ÷ n) for independent
// samples and z·σ ÷ √n for pairs (logSpread's σ) — the normal-theory
// widths, which the Hodges–Lehmann intervals approach within a few
// percent. To leave 0 it must shrink below |estimate|, to fit within ±δ
// below δ − |estimate|, each with probability PowerTarget: n =
// factor·((z_{1−α/2} + z_{power})·σ ÷ target)². Each answer is at least
// one more than the larger side now, and at least the smallest size with
// a finite interval at its level.
func windowsNeeded(d Design, from, to []float64, s Shift, minEffect, alphaExclude, alphaSame float64) int {
	sigma := logSpread(d, from, to)
	factor := 2.0
	if d == Paired {
		factor = 1
	}
	have := max(s.N1, s.N2)
	est := math.Abs(math.Log1p(s.Estimate))
	need := func(target, alpha float64) int {
		floor := windowsFloor(d, have, alpha)
		if sigma == 0 {
			return floor
		}
		if target <= 0 {
			return MaxWindowsNeeded
		}
		z := normalQuantile(1-alpha/2) + normalQuantile(PowerTarget)
		// The rank intervals need π/3 times the windows of the normal-theory
		// ones for the same width (the Wilcoxon tests' efficiency, 3/π, under
		// normal noise).
		n := factor * math.Pow(z*sigma/target, 2) * math.Pi / 3
		if n >= MaxWindowsNeeded {
			return MaxWindowsNeeded
		}
		return max(floor, int(math.Ceil(n)))
	}
	return min(need(est, alphaExclude), need(math.Log1p(minEffect)-est, alphaSame))
}

// logSpread is the noise a step's interval is built from, on the log
// scale: for pairs the robust spread of the pairs' log-ratios (1.4826 ×
// their median absolute deviation from their median), for independent
// samples the pooled robust spread of each side's logs around its own
// median.
func logSpread(d Design, from, to []float64) float64 {
	var dev []float64
	if d == Paired {
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
	return MADScale * mad
}

// MinPairsForSpread is the fewest pairs whose log-ratios' robust spread
// Verdict.PairedSD reports: a median absolute deviation of two values
// says nothing.
const MinPairsForSpread = 3

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
