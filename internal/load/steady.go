package load

import (
	"math"
	"slices"
	"time"
)

// The steadiness rule of an adaptive warm-up (Config.WarmupMax). The
// warm-up is cut into slices; after each, the rule looks at the completions
// (successes and failures) counted per slice so far and decides whether
// the window starts after the next slice. The decision is taken one slice
// ahead so that the harness can time its samplers to the announced start
// (Event MeasureAt) instead of reacting to it late.
const (
	// SteadySlices is how many of the last slices must agree: three, the
	// fewest in which a ramp (each slice above the one before) shows as a
	// range larger than a single jump would.
	SteadySlices = 3
	// SteadyTolerance is how far those slices may spread: their range
	// (largest − smallest count) at most 10 % of their median, twice the
	// 5 % minimum effect a step calls: a process whose slices spread more
	// is not warm to the precision of the calls, while a JIT still
	// compiling climbs 15–100 % a second (V8 on Express: 1,219 → 3,720
	// req/s over 3 s). The window's halves are held to the same tolerance
	// (Trend).
	SteadyTolerance = 0.10
	// MinWarmupRequests is how many requests a warm-up completes at least
	// before the window, when the rate allows it before the cap: JIT
	// compilers tier a function up after some hundreds of calls, not after
	// some time. A route too slow to complete them before the cap needs
	// only WarmupRule.MinCompletions (two per connection).
	MinWarmupRequests = 300
	// minSlice and maxSlice bound the slice length (WarmupSlice).
	minSlice = 100 * time.Millisecond
	maxSlice = 500 * time.Millisecond
)

// WarmupSlice is the slice length for a warm-up of at least floor: a
// quarter of it, from 100 ms to 500 ms. A quarter makes the shortest
// steady warm-up (SteadySlices slices and the announced one) exactly the
// floor: 0.5 s at quick for a server warm from its first request.
func WarmupSlice(floor time.Duration) time.Duration {
	return min(max(floor/4, minSlice), maxSlice)
}

// WarmupDecision is what the rule says after a slice.
type WarmupDecision int

// The decisions: go on warming up, start the window after the next slice
// because the warm-up is steady, or start it then because the next slice
// reaches the cap.
const (
	WarmupContinue WarmupDecision = iota
	WarmupSteady
	WarmupCapped
)

// WarmupRule decides when an adaptive warm-up ends. It is a pure function
// of the slices' counts, so it is tested without a clock.
type WarmupRule struct {
	// Slice is the slice length; Floor and Cap bound the warm-up and are
	// rounded up to whole slices.
	Slice, Floor, Cap time.Duration
	// Connections is the run's connections (the most in flight).
	Connections int
}

// NewWarmupRule is the rule for a warm-up of floor to cap on conns
// connections, with WarmupSlice(floor) slices.
func NewWarmupRule(floor, cap time.Duration, conns int) WarmupRule {
	return WarmupRule{Slice: WarmupSlice(floor), Floor: floor, Cap: max(cap, floor), Connections: conns}
}

// FloorSlices is the fewest slices a warm-up lasts.
func (w WarmupRule) FloorSlices() int { return max(ceilDiv(w.Floor, w.Slice), SteadySlices+1) }

// CapSlices is the most slices a warm-up lasts.
func (w WarmupRule) CapSlices() int { return max(ceilDiv(w.Cap, w.Slice), w.FloorSlices()) }

// MinCompletions is the fewest completions a steady warm-up has: two per
// connection, so that every connection has had a request answered after
// its first (a slow route's minimum).
func (w WarmupRule) MinCompletions() int64 { return 2 * int64(w.Connections) }

func ceilDiv(a, b time.Duration) int { return int((a + b - 1) / b) }

// Decide looks at counts, the completions of each slice so far (counts[0]
// the first), and says whether the window starts after the next slice.
func (w WarmupRule) Decide(counts []int64) WarmupDecision {
	next := len(counts) + 1 // the slice after which the window would start
	if next < w.FloorSlices() {
		return WarmupContinue
	}
	if w.Steady(counts) && w.enough(counts) {
		return WarmupSteady
	}
	if next >= w.CapSlices() {
		return WarmupCapped
	}
	return WarmupContinue
}

// enough reports whether the warm-up has completed enough requests:
// MinWarmupRequests, or MinCompletions when at its current pace (the last
// slices' median) it would not complete MinWarmupRequests by the cap.
func (w WarmupRule) enough(counts []int64) bool {
	var total int64
	for _, c := range counts {
		total += c
	}
	switch {
	case total < w.MinCompletions():
		return false
	case total >= MinWarmupRequests:
		return true
	}
	left := w.CapSlices() - len(counts)
	byCap := float64(total) + lastMedian(counts)*float64(left)
	return byCap < MinWarmupRequests
}

// Steady reports whether the warm-up's throughput has settled: the last
// SteadySlices blocks of slices agree (agree). A block is one slice when
// that resolves the tolerance; in a closed loop each connection completes
// a whole number of requests in a block, so blocks of a steady server may
// differ by up to one request per connection, and a block must hold at
// least Connections ÷ SteadyTolerance completions for that blur to stay
// within the tolerance; counting noise is allowed too (chance). With
// fewer, blocks of 2, 3, … slices are judged,
// and until they are long enough the warm-up is not steady. A route so
// slow that no block before the cap would be long enough (four answers
// every 300 ms) is judged once, on the slice before the cap's, on the
// longest blocks then, whole requests per connection allowed, and
// counting noise (countingNoise) unless no block is below the one before
// it (a ramp, or a ramp's plateau): it cannot show steadiness finer than that, and
// an early judgement on short blocks would pass a ramp (a JIT's first
// slow seconds) as easily.
func (w WarmupRule) Steady(counts []int64) bool {
	conns := float64(w.Connections)
	longest := len(counts) / SteadySlices
	if longest == 0 {
		return false
	}
	switch n := len(counts); {
	case n >= JitterSlices:
		if ramping(counts[n-JitterSlices:]) {
			return false
		}
	case n >= MinRampSlices:
		// Before eight slices, unless the last three agree within half
		// the tolerance by themselves: their agreement would otherwise
		// rest on chance's allowance, or on a ramp's last steps (96 · 112
		// · 112 · 144 · 160 · 160, a server ramping over 2.5 s on a busy
		// host: 10 % apart), which a ramp must not get. A ramp that has
		// ended (300 · 600 · 2,000 · 2,100 · 2,050: 5 % apart) is not
		// held back.
		if last := lastBlocks(counts, 1); float64(slices.Max(last)-slices.Min(last)) > SteadyTolerance/2*median(last) && ramping(counts) {
			return false
		}
	}
	for b := 1; b <= longest; b++ {
		blocks := lastBlocks(counts, b)
		if m := median(blocks); SteadyTolerance*m >= conns {
			return agree(blocks, chance(blocks, counts, b, w.Connections))
		}
	}
	// No block so far resolves the tolerance: judge coarsely only at the
	// last decision before the cap.
	if len(counts)+1 < w.CapSlices() {
		return false
	}
	blocks := lastBlocks(counts, longest)
	return agree(blocks, conns+chance(blocks, nil, longest, 0))
}

// chance is how far blocks of b slices each may spread by chance alone,
// unless no block is below the one before it: chance spreads blocks
// either way, while a ramp climbs block after block (or pauses on a
// plateau) and gets no such allowance. Chance is the larger of two
// figures. Counting noise (countingNoise): under about 1,100 completions
// a block it is wider than SteadyTolerance; a route of 130 req/s on 32
// connections, in blocks of five 500 ms slices (317, 373, 330), was
// judged not steady on the 10 % alone where chance spreads such blocks by
// 60 (examples/django-elysia, Uvicorn's cpu). And, when counts (the
// slices) are given, the process's own jitter (jitterNoise): a JIT
// runtime's garbage collector, or a host whose CPU comes and goes, moves
// slices of tens of thousands of requests by a quarter to either side
// (Elysia on Bun, health: 24,834 to 48,938 a 500 ms slice), where
// counting noise is 1 %, and such a process was judged not steady in 59
// of 168 windows (examples/nest-bun-elysia) although it never climbed.
func chance(blocks, counts []int64, b, conns int) float64 {
	if climbing(blocks) {
		return 0
	}
	return max(countingNoise(median(blocks)), jitterNoise(counts, b, conns))
}

// JitterSlices is how many of the last slices jitterNoise reads, at
// least: enough for a median of their differences to mean something.
const JitterSlices = 8

// jitterNoise is how far three blocks of b slices of a stationary process
// may spread by chance, judged from the slices themselves: 3.3 standard
// deviations of a block, as countingNoise, where a slice's deviation is
// estimated from the differences between consecutive slices (robustly:
// 1.4826 × their median absolute deviation from their median ÷ √2) over the last 3b slices, or
// JitterSlices when that is more; with fewer slices than that, or when a
// slice holds too few requests per connection to resolve the tolerance,
// none. It is allowed in the fine judgement only. Differences between neighbours hardly
// see a slow drift, so a drifting process is not excused by its drift;
// blocks that climb get no allowance at all (chance).
func jitterNoise(counts []int64, b, conns int) float64 {
	n := max(SteadySlices*b, JitterSlices)
	if len(counts) < n {
		// Too few slices to tell the process's jitter from what is
		// being judged: three slices' own differences would excuse any
		// spread they have.
		return 0
	}
	tail := counts[len(counts)-n:]
	if float64(slices.Min(tail))*SteadyTolerance < float64(conns) {
		// Slices of a few requests per connection differ by the
		// pattern in which whole requests complete (0, 0, 4, 0, 0, 4
		// …), which is not noise to excuse: the whole-requests rule
		// (Steady) handles them.
		return 0
	}
	diffs := make([]int64, 0, len(tail)-1)
	for i := 1; i < len(tail); i++ {
		diffs = append(diffs, tail[i]-tail[i-1])
	}
	// Around their median, not 0: a ramp's slices differ by its pace,
	// which is not noise either.
	pace := int64(math.Round(median(diffs)))
	for i, d := range diffs {
		diffs[i] = max(d-pace, pace-d)
	}
	sd := 1.4826 * median(diffs) / math.Sqrt2
	return 3.3 * sd * math.Sqrt(float64(b))
}

// RampT is the t statistic of the last slices' slope above which they
// climb beyond chance: the one-sided 1 % point of Student's t with 6
// degrees of freedom (JitterSlices slices, two parameters fitted).
const RampT = 3.143

// MinRampSlices is the fewest slices the ramp test judges. Before there
// are JitterSlices it judges all of them, when the last three slices do
// not agree within the tolerance on their own, at the one-sided 2.5 %
// point of t (rampTShort): fewer slices have less power, and on a busy host a
// sleeping server's ramp of 96 · 103 · 121 · 137 · 155 · 184 · 161
// completions a slice passed as steady on its last three alone, counting
// noise allowed; a false ramp costs one more slice, since the next one is
// judged again.
const MinRampSlices = 5

// rampTShort holds the one-sided 2.5 % points of Student's t by degrees of
// freedom (slices − 2), for series shorter than JitterSlices.
var rampTShort = map[int]float64{3: 3.182, 4: 2.776, 5: 2.571}

// rampT is the critical t of a series of n slices.
func rampT(n int) float64 {
	if t, ok := rampTShort[n-2]; ok {
		return t
	}
	return RampT
}

// ramping reports whether counts (the last JitterSlices slices, or all
// of them while there are fewer) climb: the least-squares slope through
// them is above 0 beyond chance (its t statistic above rampT) and rises, over their span, by more than half the
// tolerance of their mean. The three blocks agree tests only a spread, and
// a slow ramp whose slices jitter around it passes that (16,500 · 19,000 ·
// 17,000 · 18,400, a 3 % rise a slice under ±7 % jitter); a window after
// it would measure a process still warming.
func ramping(counts []int64) bool {
	n := float64(len(counts))
	if n < 3 {
		return false
	}
	var mx, my float64
	for i, c := range counts {
		mx += float64(i)
		my += float64(c)
	}
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for i, c := range counts {
		sxy += (float64(i) - mx) * (float64(c) - my)
		sxx += (float64(i) - mx) * (float64(i) - mx)
	}
	slope := sxy / sxx
	if slope <= 0 || slope*(n-1) <= SteadyTolerance/2*my {
		return false
	}
	var sse float64
	for i, c := range counts {
		r := float64(c) - (my + slope*(float64(i)-mx))
		sse += r * r
	}
	se := math.Sqrt(sse/(n-2)) / math.Sqrt(sxx)
	return se == 0 || slope/se > rampT(len(counts))
}

// climbing reports whether no count is below the one before.
func climbing(counts []int64) bool {
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] {
			return false
		}
	}
	return true
}

// countingNoise is how far three blocks of about n completions of a
// steady server may spread by chance alone: 3.3 standard deviations of a
// count (√n, as if completions were a Poisson stream), which the range of
// three such counts exceeds one time in twenty. A slow route's blocks are
// short enough for it to matter: at 40 completions a 125 ms slice (a
// CPU-heavy route at 32 connections), blocks of seven slices hold about
// 280 and spread by 55 by chance, where one request per connection
// allows 32, and such a server's warm-ups were judged not steady five
// times in thirteen on a quiet host (the README demo's PGO cpu cell).
func countingNoise(n float64) float64 {
	return 3.3 * math.Sqrt(max(n, 0))
}

// lastBlocks sums the last SteadySlices blocks of b slices each.
func lastBlocks(counts []int64, b int) []int64 {
	out := make([]int64, SteadySlices)
	tail := counts[len(counts)-SteadySlices*b:]
	for i, c := range tail {
		out[i/b] += c
	}
	return out
}

// agree reports whether blocks spread (largest − smallest) by at most
// SteadyTolerance of their median, or by slack requests when that is
// more. When they rise block after block, as a warm-up does, half the
// tolerance: a slow ramp (3–5 % a block) would otherwise pass, and a
// steady server's blocks rise in a row only one time in six.
func agree(blocks []int64, slack float64) bool {
	tol := SteadyTolerance
	if rising(blocks) {
		tol /= 2
	}
	lo, hi := slices.Min(blocks), slices.Max(blocks)
	return float64(hi-lo) <= max(tol*median(blocks), slack)
}

// rising reports whether each count is above the one before.
func rising(counts []int64) bool {
	for i := 1; i < len(counts); i++ {
		if counts[i] <= counts[i-1] {
			return false
		}
	}
	return true
}

// median is the median of counts.
func median(counts []int64) float64 {
	c := slices.Clone(counts)
	if len(c) == 0 {
		return 0
	}
	slices.Sort(c)
	n := len(c)
	if n%2 == 1 {
		return float64(c[n/2])
	}
	return float64(c[n/2-1]+c[n/2]) / 2
}

// lastMedian is the median of the last SteadySlices counts (of all when
// fewer).
func lastMedian(counts []int64) float64 {
	return median(counts[max(len(counts)-SteadySlices, 0):])
}

// Trend compares the window's halves (Result.Halves, successes) on conns
// connections: change is the second half's count over the first's, minus
// 1, and clear is true when they differ by more than SteadyTolerance of
// their mean and by more than twice conns (what whole requests per
// connection explain, as in Steady, with room for the window's noise: a
// half is longer than a slice, and a steady one varies less in share). A
// clear upward trend is a process still warming; a downward one, a
// process slowing (a growing heap, a throttled host).
func Trend(h1, h2 int64, conns int) (change float64, clear bool) {
	if h1 <= 0 || h2 <= 0 {
		return 0, false
	}
	change = float64(h2)/float64(h1) - 1
	diff := math.Abs(float64(h2 - h1))
	mean := float64(h1+h2) / 2
	return change, diff > SteadyTolerance*mean && diff > 2*float64(conns)
}
