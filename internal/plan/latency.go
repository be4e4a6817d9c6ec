package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// LatencyRate is the offered rate of the latency windows (latency: {rate:
// …}, --latency-rate): each cell of a round also gets an open-loop window
// at one rate for every stack of its case and concurrency, and steps call
// its p50 and p99 (docs/statistics.md, "Latency at a fixed rate"). Exactly
// one of Share and RPS is set.
type LatencyRate struct {
	// Share is a fraction of the slowest stack's closed-loop median
	// throughput over the rate rounds (Protocol.RateRounds; 0.5 for rate:
	// 50%): the run fixes the rate once those rounds' windows of the case
	// are in, and journals it.
	Share float64 `json:"share,omitempty"`
	// RPS is an absolute rate in requests per second (rate: 800).
	RPS float64 `json:"rps,omitempty"`
}

// String writes the rate as the file does: "50%" or "800".
func (l LatencyRate) String() string {
	if l.Share > 0 {
		return strconv.FormatFloat(100*l.Share, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(l.RPS, 'f', -1, 64)
}

// Describe says what the rate is, for the plan's summary.
func (l LatencyRate) Describe() string {
	if l.Share > 0 {
		return fmt.Sprintf("%s of the slowest stack's closed-loop median", l.String())
	}
	return l.String() + " req/s (flows/s for a flow case)"
}

// FirstRound is the first round with latency windows when none waits for
// its round's end: the round after the rate rounds for a share (its rate
// is known once their closed-loop windows are in), 1 for an absolute rate.
func (l LatencyRate) FirstRound(rateRounds int) int {
	if l.Share > 0 {
		return max(rateRounds, 1) + 1
	}
	return 1
}

// RateRounds is how many rounds' closed-loop windows fix a latency share's
// offered rate: LatencyRateRounds, or 1 in journals written before it.
// Each stack's median over its counted windows of those rounds is taken,
// so one disturbed window cannot set the rate alone.
func (p Protocol) RateRounds() int { return max(p.LatencyRateRounds, 1) }

// DefaultRateRounds is the rate rounds of a run with a latency share whose
// rate rounds' latency windows wait for the round's end (LatencyRoundOne)
// and whose rounds leave a cell minLatencyWindows latency windows.
const DefaultRateRounds = 2

// ParseLatencyRate reads "50%" (a share of the slowest stack's median,
// above 0 % and below 100 %) or "800" (requests per second, at least 1).
func ParseLatencyRate(s string) (LatencyRate, error) {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, "%") {
		f, err := ParseFraction(t)
		if err != nil {
			return LatencyRate{}, err
		}
		return LatencyRate{Share: f}, nil
	}
	t = strings.TrimSpace(strings.TrimSuffix(t, "/s"))
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return LatencyRate{}, fmt.Errorf("not a percentage or a number of requests per second")
	}
	if f < 1 {
		return LatencyRate{}, fmt.Errorf("an absolute rate is at least 1 request per second (a share is written with %%)")
	}
	return LatencyRate{RPS: f}, nil
}

const latencyExample = "latency: {rate: 50%} (a share of the slowest stack's closed-loop median), or latency: {rate: 800} (req/s)"

// latency reads the protocol's latency: {rate: …}.
func (p *parser) latency(n *yaml.Node, o *Overrides) {
	m, ok := p.fields(n, "latency", []string{"rate"}, latencyExample)
	if !ok {
		return
	}
	v := m.get("rate")
	if v == nil {
		p.addf(n, "latency needs a rate; write %s", latencyExample)
		return
	}
	p.setting(v, SettingOf("latency.rate"), "latency rate", o)
}

// LatencyWindows is how many latency windows follow the closed-loop
// windows of ws: one per cell of each round from the rate's FirstRound,
// after the cell's last window of the round (LatencyAfter).
func (p *Plan) LatencyWindows(ws []Window) int {
	n := 0
	for _, w := range ws {
		if p.Protocol.LatencyAfter(w) {
			n++
		}
	}
	return n
}

// LatencyFirstRound is the first round with latency windows: the last
// rate round with LatencyRoundOne (its latency windows wait for the
// round's end), else the rate's FirstRound; 0 without latency windows.
func (p Protocol) LatencyFirstRound() int {
	switch {
	case p.Latency == nil:
		return 0
	case p.LatencyRoundOne && p.Latency.Share > 0:
		return p.RateRounds()
	case p.LatencyRoundOne:
		return 1
	}
	return p.Latency.FirstRound(p.RateRounds())
}

// LatencyDeferred reports whether w's latency window waits for the end of
// its round (the last rate round under LatencyRoundOne: its rate needs
// every stack's closed-loop windows of the rate rounds).
func (p Protocol) LatencyDeferred(w Window) bool {
	return p.LatencyRoundOne && w.Round == p.LatencyFirstRound() && p.LatencyAfter(w)
}

// LatencyAfter reports whether a latency window follows w: the protocol
// has latency windows, w's round has them, and w is its cell's last
// window of the round (its last repeat). Under LatencyDeferred it comes
// at the end of the round rather than right after w.
func (p Protocol) LatencyAfter(w Window) bool {
	if p.Latency == nil || w.Round < p.LatencyFirstRound() {
		return false
	}
	return p.Repeats() == 1 || w.Repeat == p.Repeats()
}

// Values of closed_loop: (Protocol.ClosedLoop holds "" for every).
const (
	// ClosedLoopEvery: a closed-loop window for every cell of every round.
	ClosedLoopEvery = "every"
	// ClosedLoopFirst: closed-loop windows in the rate rounds only
	// (Protocol.RateRounds: rounds 1 and 2 of a run with a latency share,
	// round 1 otherwise), where they fix the latency windows' rate and give
	// the report its throughput; after them a cell's round is its latency
	// window alone. A run
	// that calls only metrics of the latency windows gets a pair of them
	// per round at a little over half the time (the demo's rounds took
	// 45-63 s with both kinds of window, 2.3 s a closed-loop window and
	// 1.6 s a latency one, 2026-12-03).
	ClosedLoopFirst = "first"
)

// ClosedLoopIn reports whether the closed-loop window w is measured:
// always, but after the rate rounds under closed_loop: first, where only
// the latency window after it is.
func (p Protocol) ClosedLoopIn(w Window) bool {
	return p.ClosedLoop != ClosedLoopFirst || w.Round <= p.RateRounds()
}

// ClosedLoopWindows counts the windows of ws whose closed-loop window is
// measured (ClosedLoopIn).
func (p Protocol) ClosedLoopWindows(ws []Window) int {
	n := 0
	for _, w := range ws {
		if p.ClosedLoopIn(w) {
			n++
		}
	}
	return n
}

// SpendingFinal is Protocol.Spending for a run whose last look keeps most
// of α (stats.LooksLagged).
const SpendingFinal = "final"

// FixedRateWarmup is the warm-up of a latency window: the stack's floor
// after its cell's closed-loop window, which warmed the process; twice
// the floor where none ran before it (closed_loop: first from round 2),
// at the offered rate, so that a fresh process gets about as many
// requests before its window as a closed-loop warm-up gives it at its
// floor.
func (p Protocol) FixedRateWarmup(s Stack, w Window) time.Duration {
	floor, _ := p.WarmupFor(s)
	if p.ClosedLoopIn(w) {
		return floor
	}
	return 2 * floor
}

// resolveClosedLoop settles closed_loop: after the file and the flags:
// unset, it is first when the run has latency windows and calls only
// their metrics, else every; every is kept as "" (as journals before it).
func (p *Protocol) resolveClosedLoop() {
	if p.ClosedLoop == "" && p.Latency != nil && len(p.Calls) > 0 {
		p.ClosedLoop = ClosedLoopFirst
		for _, m := range p.Calls {
			if !slices.Contains(LatencyMetrics, m) {
				p.ClosedLoop = ""
			}
		}
	}
	if p.ClosedLoop == ClosedLoopEvery {
		p.ClosedLoop = ""
	}
}

// checkClosedLoop says what is wrong with closed_loop: first, or "".
func checkClosedLoop(p Protocol) string {
	if p.ClosedLoop != ClosedLoopFirst {
		return ""
	}
	if p.Latency == nil {
		return "closed_loop: first leaves the rounds after the first to the latency windows, and the run has none; add latency: {rate: 50%} (or --latency-rate 50%), or write closed_loop: every"
	}
	var closed []string
	for _, m := range p.CalledMetrics() {
		if !slices.Contains(LatencyMetrics, m) {
			closed = append(closed, m)
		}
	}
	if len(closed) > 0 {
		return fmt.Sprintf("closed_loop: first measures the closed-loop windows in round 1 only, and the run calls %s, which needs them in every round; call only p50, p99 or cost (calls: [cost]), or write closed_loop: every",
			strings.Join(closed, " and "))
	}
	return ""
}

// LatencyKey is the key of the latency window that follows w:
// "r2/gin/order/c100/latency".
func LatencyKey(w Window) string {
	return WindowKey(w.Round, w.Stack, w.Case, w.Concurrency) + "/latency"
}

// minLatencyWindows is the counted latency windows a valid cell has
// (analysis.MinCountedWindows).
const minLatencyWindows = 3

// minLatencyRounds is the fewest rounds a latency cell can be valid in:
// its windows start in LatencyFirstRound, and a valid cell has
// minLatencyWindows counted ones.
func minLatencyRounds(p Protocol) int { return p.LatencyFirstRound() - 1 + minLatencyWindows }

// checkLatency says what is wrong with a protocol's latency windows, or "".
func checkLatency(p Protocol) string {
	if p.Latency == nil {
		return ""
	}
	if need := minLatencyRounds(p); p.LastRound() < need {
		return fmt.Sprintf("latency: {rate: %s} starts its windows in round %d and a cell needs 3 of them, so the run needs at least %d rounds (it has %d); raise rounds (or max_rounds), or drop latency",
			p.Latency, p.LatencyFirstRound(), need, p.LastRound())
	}
	return ""
}

// latencyEstimate is what the latency windows of ws add to their time: a
// fixed warm-up (FixedRateWarmup) and a window each.
func (p *Plan) latencyEstimate(ws []Window) time.Duration {
	if p.Protocol.Latency == nil {
		return 0
	}
	var d time.Duration
	for _, w := range ws {
		if !p.Protocol.LatencyAfter(w) {
			continue
		}
		st, _ := p.Stack(w.Stack)
		d += p.Protocol.FixedRateWarmup(st, w) + p.Protocol.Window + windowOverhead
		if w.Inserts {
			d += resetOrders
		}
	}
	return d
}
