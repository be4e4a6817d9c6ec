package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The pooled-quantile call (docs/statistics.md, "Latency at a fixed
// rate"). A latency percentile is a property of all the requests a stack
// served, not of a typical window: a stack that stalls in a fifth of its
// windows has a p99 set by those windows, while the median window's p99
// (and any rank test over the windows' own p99s) sees four good windows
// in five and calls it faster. So the call compares the figure the table
// shows, the q-quantile of the windows' histograms merged, and takes its
// uncertainty from the rounds: the rounds, not the requests, are the
// independent units (a stall holds up every request behind it).
//
//   - The test is a randomisation test over rounds: under "no difference"
//     a round's two windows are exchangeable, so each of the 2ⁿ ways of
//     swapping them within rounds is equally likely. The p-value is the
//     share of those with a log-ratio of pooled quantiles at least as
//     extreme as the one observed, two-sided; exact (all 2ⁿ up to
//     exactFlipsMax pairs, a fixed-seed sample of randomFlips beyond).
//     Its smallest value is 2 ÷ 2ⁿ, the signed-rank test's, so the looks
//     and the family's thresholds hold unchanged. Independent samples use
//     the same test with labels permuted over all windows.
//   - The interval is a percentile bootstrap over rounds (pairs resampled
//     with replacement, bootstrapResamples of them, fixed seed), because
//     inverting the randomisation test over shifts of a pooled quantile
//     has no closed form. A bootstrap interval can be a little narrow
//     with few rounds, so a gain or a loss needs both: the test at the
//     level and the interval clear of 0.

// Dist is one window's latency distribution: its histogram's non-empty
// buckets, values ascending, each with its count.
type Dist struct {
	Values []float64
	Counts []int64
}

// exactFlipsMax is the most pairs whose 2ⁿ sign patterns are all
// enumerated; randomFlips are drawn beyond it.
const (
	exactFlipsMax      = 14
	randomFlips        = 1 << 14
	bootstrapResamples = 10000
)

// pool holds windows' distributions on one common grid, so that the
// pooled quantile of any multiset of them is a binary search.
type pool struct {
	grid []float64
	n    int     // windows
	cum  []int64 // cum[k·n + w]: window w's count at values ≤ grid[k]
	tot  []int64
}

func newPool(ds []Dist) pool {
	var grid []float64
	for _, d := range ds {
		grid = append(grid, d.Values...)
	}
	slices.Sort(grid)
	grid = slices.Compact(grid)
	n := len(ds)
	p := pool{grid: grid, n: n, cum: make([]int64, len(grid)*n), tot: make([]int64, n)}
	for w, d := range ds {
		j := 0
		var acc int64
		for k, g := range grid {
			for j < len(d.Values) && d.Values[j] <= g {
				acc += d.Counts[j]
				j++
			}
			p.cum[k*n+w] = acc
		}
		p.tot[w] = acc
	}
	return p
}

// quantile is the q-quantile of the windows taken wt[w] times each,
// pooled: the smallest grid value whose pooled count reaches the rank
// q·total rounded (at least 1), the rule of the histograms' own
// percentiles. NaN when the windows hold nothing.
func (p *pool) quantile(wt []int, q float64) float64 {
	var total int64
	for w, k := range wt {
		total += int64(k) * p.tot[w]
	}
	if total == 0 {
		return math.NaN()
	}
	rank := min(max(int64(q*float64(total)+0.5), 1), total)
	lo, hi := 0, len(p.grid)-1
	for lo < hi {
		mid := (lo + hi) / 2
		row := p.cum[mid*p.n : mid*p.n+p.n]
		var c int64
		for w, k := range wt {
			c += int64(k) * row[w]
		}
		if c >= rank {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return p.grid[lo]
}

// PooledQuantile is the q-quantile of the distributions merged.
func PooledQuantile(ds []Dist, q float64) float64 {
	p := newPool(ds)
	wt := make([]int, len(ds))
	for i := range wt {
		wt[i] = 1
	}
	return p.quantile(wt, q)
}

// PooledShift returns the relative shift of the pooled q-quantile from
// the windows of "from" to those of "to" under design d (Paired: from[i]
// and to[i] are one round's), with a bootstrap interval at 1 − alpha and
// the randomisation test's p-value (see the comment at the top of this
// file). Every window must hold at least one value, and values must be
// positive.
func PooledShift(d Design, from, to []Dist, q, alpha float64) (Shift, error) {
	s, err := pooledShifts(d, from, to, q, alpha)
	if err != nil {
		return Shift{}, err
	}
	return s[0], nil
}

// pooledShifts is PooledShift at each of alphas, from one randomisation
// test and one set of bootstrap resamples (the test's p-value and the
// resamples do not depend on the level).
func pooledShifts(d Design, from, to []Dist, q float64, alphas ...float64) ([]Shift, error) {
	if d == Paired && len(from) != len(to) {
		return nil, fmt.Errorf("pooled shift: %d windows on one side and %d on the other", len(from), len(to))
	}
	if len(from) == 0 || len(to) == 0 {
		return nil, errors.New("pooled shift: a side has no window")
	}
	for _, alpha := range alphas {
		if !(alpha > 0 && alpha < 1) || !(q > 0 && q < 1) {
			return nil, fmt.Errorf("pooled shift: alpha %g or quantile %g is not in (0, 1)", alpha, q)
		}
	}
	all := append(slices.Clip(from), to...)
	for _, ds := range all {
		if len(ds.Values) == 0 || ds.Values[0] <= 0 {
			return nil, fmt.Errorf("pooled shift: a window has no latency above zero: %w", ErrNotPositive)
		}
	}
	p := newPool(all)
	n1, n2 := len(from), len(to)
	wa, wb := make([]int, n1+n2), make([]int, n1+n2)
	stat := func() float64 { return math.Log(p.quantile(wb, q)) - math.Log(p.quantile(wa, q)) }
	for i := range n1 {
		wa[i] = 1
	}
	for i := range n2 {
		wb[n1+i] = 1
	}
	t0 := stat()
	s := Shift{N1: n1, N2: n2, Estimate: math.Expm1(t0), Lo: -1, Hi: math.Inf(1), Confidence: 1}
	seed := uint64(n1)<<32 ^ uint64(n2) ^ math.Float64bits(t0)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	if d == Paired {
		s.Pairs = n1
		s.P = flipP(n1, wa, wb, stat, t0, rng)
	} else {
		s.P = permuteP(n1, n2, wa, wb, stat, t0, rng)
	}
	out := make([]Shift, len(alphas))
	var boot []float64
	for i, alpha := range alphas {
		out[i] = s
		if d.MinLevel(min(n1, n2)) > alpha {
			continue // no finite interval at alpha, as the rank intervals
		}
		if boot == nil {
			boot = resample(d, n1, n2, wa, wb, stat, rng)
		}
		k := int(math.Floor(alpha / 2 * float64(len(boot))))
		out[i].Lo, out[i].Hi = math.Expm1(boot[k]), math.Expm1(boot[len(boot)-1-k])
		out[i].Bounded, out[i].Confidence = true, 1-alpha
	}
	return out, nil
}

// resample is the sorted bootstrap distribution of stat over
// bootstrapResamples resamples: of rounds under Paired, of each side's
// windows otherwise.
func resample(d Design, n1, n2 int, wa, wb []int, stat func() float64, rng *rand.Rand) []float64 {
	boot := make([]float64, 0, bootstrapResamples)
	for range bootstrapResamples {
		clear(wa)
		clear(wb)
		if d == Paired {
			for range n1 {
				i := rng.IntN(n1)
				wa[i]++
				wb[n1+i]++
			}
		} else {
			for range n1 {
				wa[rng.IntN(n1)]++
			}
			for range n2 {
				wb[n1+rng.IntN(n2)]++
			}
		}
		boot = append(boot, stat())
	}
	slices.Sort(boot)
	return boot
}

// flipP is the paired randomisation test's two-sided p-value: over the
// sign patterns (each round's windows swapped or not), the share at
// least as extreme as t0 on its side, doubled.
func flipP(n int, wa, wb []int, stat func() float64, t0 float64, rng *rand.Rand) float64 {
	set := func(swap func(i int) bool) float64 {
		clear(wa)
		clear(wb)
		for i := range n {
			if swap(i) {
				wa[n+i], wb[i] = 1, 1
			} else {
				wa[i], wb[n+i] = 1, 1
			}
		}
		return stat()
	}
	le, ge, total := 0, 0, 0
	count := func(t float64) {
		total++
		if t <= t0+1e-12 {
			le++
		}
		if t >= t0-1e-12 {
			ge++
		}
	}
	if n <= exactFlipsMax {
		for bits := range 1 << n {
			count(set(func(i int) bool { return bits>>i&1 == 1 }))
		}
	} else {
		count(t0) // the observed pattern is one of them
		flip := make([]bool, n)
		for range randomFlips {
			for i := range flip {
				flip[i] = rng.IntN(2) == 1
			}
			count(set(func(i int) bool { return flip[i] }))
		}
	}
	return min(1, 2*float64(min(le, ge))/float64(total))
}

// permuteP is flipP for independent samples: labels permuted over all
// n1 + n2 windows, randomFlips of them, the observed one included.
func permuteP(n1, n2 int, wa, wb []int, stat func() float64, t0 float64, rng *rand.Rand) float64 {
	idx := make([]int, n1+n2)
	for i := range idx {
		idx[i] = i
	}
	le, ge, total := 1, 1, 1
	for range randomFlips {
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		clear(wa)
		clear(wb)
		for j, i := range idx {
			if j < n1 {
				wa[i] = 1
			} else {
				wb[i] = 1
			}
		}
		t := stat()
		total++
		if t <= t0+1e-12 {
			le++
		}
		if t >= t0-1e-12 {
			ge++
		}
	}
	return min(1, 2*float64(min(le, ge))/float64(total))
}

// DecidePooled decides a step on the pooled q-quantile of its two sides'
// windows (Side.Dists), paired by round under Paired: a latency, so the
// shift is of the latency and the caller turns a rise into a loss. A gain
// or a loss needs the test at alpha and the interval clear of 0; same
// needs the 1 − 2α interval within ±δ.
func DecidePooled(d Design, from, to Side, q, minEffect, alpha float64) Verdict {
	v := Verdict{Call: CallInvalid, MinEffect: minEffect, Alpha: alpha}
	if !from.Valid || !to.Valid {
		v.Reason = "a side is not valid"
		return v
	}
	x, y := from.Dists, to.Dists
	xv, yv := from.Windows, to.Windows
	if d == Paired {
		x, y, xv, yv = pairDists(from, to)
		if len(x) == 0 {
			v.Call = CallUndecided
			v.Shift = Shift{Lo: -1, Hi: math.Inf(1), Confidence: 1}
			v.WindowsNeeded = windowsFloor(d, 0, alpha)
			v.Reason = "no round has a counted window on both sides, so there is no pair to compare"
			return v
		}
	}
	shifts, err := pooledShifts(d, x, y, q, alpha, SameLevel(alpha))
	if err != nil {
		v.Reason = err.Error()
		return v
	}
	s := shifts[0]
	at := func(float64) (Shift, error) { return shifts[1], nil }
	v.decide(s, at, minEffect, alpha)
	what := fmt.Sprintf("the pooled p%g over %s", 100*q, unitsOf(d, s))
	level := fmt.Sprintf("%s %%", trimPct(100*v.Shift.Confidence))
	switch {
	case (v.Call == CallGain || v.Call == CallLoss) && s.P > alpha:
		// The interval clears 0 but the test does not reject: not a
		// change; same when the 1 − 2α interval lies within ±δ.
		v.Reason = fmt.Sprintf("%s: the %s bootstrap interval excludes 0, but the randomisation test over rounds does not reject at α=%.2g (p=%.2g)", what, level, alpha, s.P)
		v.Call, v.Size = CallUndecided, SizeUnknown
		if Within(v.sameShift, minEffect) {
			v.Call, v.Shift = CallSame, v.sameShift
			v.Reason += fmt.Sprintf("; the whole %s bootstrap interval lies within ±%s (two one-sided tests at α=%.2g)", levelOf(v.sameShift), pct(minEffect), alpha)
		}
	case v.Call == CallGain || v.Call == CallLoss:
		v.Reason = fmt.Sprintf("%s: the randomisation test rejects at α=%.2g (p=%.2g) and the %s bootstrap interval excludes 0", what, alpha, s.P, level)
		switch v.Size {
		case SizeLarge:
			v.Reason += fmt.Sprintf(" and lies wholly past ±%s", pct(minEffect))
		case SizeSmall:
			v.Reason += fmt.Sprintf(" and lies wholly within ±%s: real but smaller than the minimum effect", pct(minEffect))
		}
	case v.Call == CallSame:
		v.Reason = fmt.Sprintf("%s: the whole %s bootstrap interval lies within ±%s (two one-sided tests at α=%.2g)", what, level, pct(minEffect), alpha)
	}
	if v.Call == CallUndecided {
		if len(xv) == len(x) && len(yv) == len(y) && len(xv) > 0 && allPositive(xv) && allPositive(yv) {
			v.WindowsNeeded = windowsNeeded(d, xv, yv, s, minEffect, alpha, SameLevel(alpha))
		} else {
			v.WindowsNeeded = windowsFloor(d, max(s.N1, s.N2), alpha)
		}
		switch {
		case v.Reason != "":
		case !s.Bounded:
			v.Reason = fmt.Sprintf("%s: too few for any finite interval at α=%.2g", what, alpha)
		default:
			v.Reason = fmt.Sprintf("%s: the %s bootstrap interval includes 0 and reaches past ±%s, and the %s interval is not within it", what, level, pct(minEffect), levelOf(v.sameShift))
		}
	}
	return v
}

func unitsOf(d Design, s Shift) string {
	if d == Paired {
		return fmt.Sprintf("%d rounds", s.Pairs)
	}
	return fmt.Sprintf("%d and %d windows", s.N1, s.N2)
}

func allPositive(xs []float64) bool {
	return !slices.ContainsFunc(xs, func(x float64) bool { return !(x > 0) })
}

// pairDists is Pair for distributions: each round in which both sides
// have a window (the first of a round), in increasing round order, with
// the windows' own values beside them.
func pairDists(from, to Side) (x, y []Dist, xv, yv []float64) {
	first := func(s Side) map[int]int {
		m := map[int]int{}
		for i := range s.Dists {
			if i >= len(s.Rounds) {
				break
			}
			if _, ok := m[s.Rounds[i]]; !ok {
				m[s.Rounds[i]] = i
			}
		}
		return m
	}
	a, b := first(from), first(to)
	var rounds []int
	for r := range a {
		if _, ok := b[r]; ok {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		x, y = append(x, from.Dists[a[r]]), append(y, to.Dists[b[r]])
		if len(from.Windows) == len(from.Dists) && len(to.Windows) == len(to.Dists) {
			xv, yv = append(xv, from.Windows[a[r]]), append(yv, to.Windows[b[r]])
		}
	}
	return x, y, xv, yv
}
