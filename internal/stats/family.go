package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Family is how false calls are controlled over a run's many calls.
type Family string

const (
	// FamilyRun controls false gains and losses over all of a run's
	// step-metric calls at once: Benjamini–Hochberg at α over their
	// p-values, and the calls it selects reported with intervals at the
	// false-coverage-adjusted level (Benjamini–Yekutieli). In an
	// unchanged (A/A) run the chance of any false gain or loss is then at
	// most α, however many steps and metrics the run calls.
	FamilyRun Family = "run"
	// FamilyStep bounds each call's false-call rate at α on its own: with
	// 28 calls, an unchanged run shows a false gain or loss far more often
	// than α.
	FamilyStep Family = "step"
)

// SidePair is one step-metric to decide: its two sides.
type SidePair struct {
	From, To Side
	// Quantile, when above 0, decides the pair on the pooled quantile of
	// the sides' windows (DecidePooled over Side.Dists) instead of the
	// windows' own values.
	Quantile float64
	// Decide, when set, decides the pair at a level in place of both (a
	// call between runs: RunsShift, WithBetweenRun).
	Decide func(alpha float64) Verdict
	// Frozen, when set, is the verdict the pair was given at the look
	// where its step stopped (an adaptive run measures no more windows
	// for it): it stands as it is, and its p-value still counts in the
	// family, so the family keeps its size and a later look cannot turn
	// it into another call with no new data.
	Frozen *Verdict
	// Shown, when set, is a metric the run does not call: its verdict is
	// CallNotCalled with the estimate and interval at α, and it stays out
	// of the family, so it neither enlarges it nor can be selected.
	Shown bool
}

// decide decides one pair at level alpha on its own.
func (sp SidePair) decide(d Design, minEffect, alpha float64) Verdict {
	if sp.Decide != nil {
		return sp.Decide(alpha)
	}
	if sp.Quantile > 0 {
		return DecidePooled(d, sp.From, sp.To, sp.Quantile, minEffect, alpha)
	}
	return DecideBy(d, sp.From, sp.To, minEffect, alpha)
}

// BenjaminiHochberg returns which of the p-values the step-up procedure
// selects at false-discovery rate q, and how many (R): the largest k with
// p₍ₖ₎ ≤ k·q ÷ m, and every p-value at most p₍ₖ₎. NaN p-values are never
// selected but count in m.
func BenjaminiHochberg(p []float64, q float64) (selected []bool, r int) {
	m := len(p)
	selected = make([]bool, m)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	// A NaN p-value sorts last, as +Inf: it is never selected.
	key := make([]float64, m)
	for i, v := range p {
		key[i] = v
		if math.IsNaN(v) {
			key[i] = math.Inf(1)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
	for k := m; k >= 1; k-- {
		if pk := key[order[k-1]]; pk <= float64(k)*q/float64(m) {
			r = k
			break
		}
	}
	for _, i := range order[:r] {
		selected[i] = true
	}
	return selected, r
}

// DecideFamily decides every step-metric of a run under design d at
// level alpha, with false calls controlled as family says. FamilyStep is
// DecideBy on each. FamilyRun first decides each at alpha, then applies
// Benjamini–Hochberg at alpha over the p-values of those that are not
// invalid (m of them): a selected one (R in all) is decided again at
// R·alpha ÷ m, where its interval excludes 0, and reported so (gain or
// loss, with that interval); one not selected cannot be a gain or a loss —
// it is same when its interval at 1 − 2α (SameLevel) lies within ±δ, else
// undecided.
func DecideFamily(family Family, d Design, pairs []SidePair, minEffect, alpha float64) []Verdict {
	out := make([]Verdict, len(pairs))
	for i, sp := range pairs {
		if sp.Frozen != nil {
			out[i] = *sp.Frozen
			continue
		}
		out[i] = sp.decide(d, minEffect, alpha)
		if sp.Shown {
			out[i] = notCalled(out[i], alpha)
		}
	}
	if family == FamilyStep {
		return out
	}
	var ps []float64
	var at []int
	for i, v := range out {
		if v.Call == CallInvalid || v.Call == CallNotCalled {
			continue
		}
		p := v.Shift.P
		if !v.Shift.Bounded && p == 0 {
			p = 1
		}
		ps, at = append(ps, p), append(at, i)
	}
	m := len(ps)
	if m == 0 {
		return out
	}
	sel, r := BenjaminiHochberg(ps, alpha)
	for j, i := range at {
		v := &out[i]
		if pairs[i].Frozen != nil {
			continue // decided at the look where its step stopped
		}
		v.FamilySize, v.FamilySelected = m, r
		if sel[j] {
			level := float64(r) * alpha / float64(m)
			adj := pairs[i].decide(d, minEffect, level)
			adj.FamilySize, adj.FamilySelected = m, r
			if adj.Call == CallGain || adj.Call == CallLoss {
				adj.Reason += fmt.Sprintf("; selected by false-call control over the run's %d calls (Benjamini–Hochberg at α=%.3g), so the interval is at the adjusted level α=%.3g", m, alpha, level)
			}
			*v = adj
			continue
		}
		if v.Call != CallGain && v.Call != CallLoss {
			continue
		}
		if Within(v.sameShift, minEffect) {
			v.Call, v.Size, v.Shift = CallSame, SizeUnknown, v.sameShift
			v.Reason = fmt.Sprintf("the whole %s interval lies within ±%s (two one-sided tests at α=%.3g), and false-call control over the run's %d calls (Benjamini–Hochberg) does not select it as a gain or loss", levelOf(v.sameShift), pct(minEffect), alpha, m)
			continue
		}
		v.Call, v.Size = CallUndecided, SizeUnknown
		v.Reason = fmt.Sprintf("the interval at α=%.3g excludes 0 (p=%.2g), but false-call control over the run's %d calls (Benjamini–Hochberg) does not select it: one more call is selected at p ≤ %.2g", alpha, v.Shift.P, m, selectable(alpha, r, m))
	}
	// An undecided call is decided either way: as a gain or a loss when
	// its interval leaves 0 at the level at which one more call of the
	// family would be selected, (r+1)·α ÷ m (with pairs, no fewer than the
	// rounds whose smallest p-value reaches it), or as same when its
	// interval at 1 − 2α fits within ±δ. Its need is the smaller of the two.
	for _, i := range at {
		v := &out[i]
		if v.Call != CallUndecided || v.Shift.N1 == 0 || pairs[i].Frozen != nil {
			continue
		}
		level := selectable(alpha, r, m)
		sp := pairs[i]
		if sp.Decide == nil {
			// The windows' own values (a pooled quantile's too: each
			// window's quantile) give the spread both ways are judged
			// from, the same at its own level.
			x, y := sp.From.Windows, sp.To.Windows
			if d == Paired {
				x, y, _ = Pair(sp.From, sp.To)
			}
			if len(x) > 0 && allPositive(x) && allPositive(y) {
				v.WindowsNeeded = windowsNeeded(d, x, y, v.Shift, minEffect, level, SameLevel(alpha))
				continue
			}
		}
		n := max(v.Shift.N1, v.Shift.N2)
		v.WindowsNeeded = max(v.WindowsNeeded, windowsFloor(d, n, level), sp.decide(d, minEffect, level).WindowsNeeded)
	}
	return out
}

// selectable is the p-value at which Benjamini–Hochberg, having selected
// r of m calls at alpha, selects one more: (r+1)·alpha ÷ m.
func selectable(alpha float64, r, m int) float64 {
	return float64(r+1) * alpha / float64(m)
}

// NotCalledInvalid opens the reason of a metric not called whose sides
// were not valid either: it has no estimate to show.
const NotCalledInvalid = "not called (protocol calls:); "

// notCalled turns a verdict on a metric the run does not call into what
// is shown of it: its estimate and interval at α, no call.
func notCalled(v Verdict, alpha float64) Verdict {
	why := fmt.Sprintf("not called: the run calls other metrics (protocol calls:); the estimate and its interval at α=%.3g on their own, outside false-call control", alpha)
	if v.Call == CallInvalid {
		why = NotCalledInvalid + v.Reason
	}
	if v.Call == CallSame {
		v.Shift = v.changeShift // the interval at α, not the one a same call reads
	}
	v.Call, v.Size, v.Reason, v.WindowsNeeded = CallNotCalled, SizeUnknown, why, 0
	return v
}
