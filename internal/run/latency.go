package run

import (
	"context"
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// The latency windows (protocol latency: {rate: …}; docs/statistics.md,
// "Latency at a fixed rate"). Right after a cell's closed-loop window of a
// round (its last repeat; from round 2 for a share, as its rate needs
// round 1), the same process serves an open-loop window at the case and
// concurrency's offered rate — one rate for every stack, fixed once and
// journaled (journal.LatencyRate) — with the window's own hygiene: the
// database prepared, the gate, the host probe, every process tree
// sampled, the redo rules. Each try is a journal.KindLatency record; the
// calls read its corrected p50 and p99.

// Limits past which a latency window's server did not keep up with its
// offered rate (judgeBehind). The flag is shown; for latency the window
// still counts, at its measured tail (analysis.latencyCounted, trap T24):
// its unsent and unfinished requests are in its corrected histogram at
// the time they had waited, so the unsent allowance below decides the
// flag only and hides no request from the latency.
const (
	// MaxBehindShare bounds each of the shares of requests unsent (due
	// and never sent: no connection came free; one per slot in flight —
	// a connection, or over HTTP/2 a stream — more is allowed), unfinished (never answered) and failed otherwise:
	// 0.1 % each.
	MaxBehindShare = 0.001
	// MaxRateShortfall is the most the served rate may fall short of the
	// offered one: 3 % (the schedule is deterministic, so a window that
	// keeps up serves its rate to within the requests in flight at its
	// two ends).
	MaxRateShortfall = 0.03
)

// latencyWindow is the plan window of the latency window after w: w's
// round, stack, case, concurrency and process, under LatencyKey.
func latencyWindow(w plan.Window) plan.Window {
	lw := w
	lw.Key = plan.LatencyKey(w)
	lw.NewProcess = false
	return lw
}

// latencyPhase is the latency windows, each right after its cell's
// closed-loop window (roundsPhase calls measure).
type latencyPhase struct {
	r      *runner
	rounds *roundsPhase
}

// measure measures the latency window after w when the plan has
// one there and it is not journaled yet, on w's process (started anew
// when w was measured by an earlier invocation).
func (ph *latencyPhase) measure(ctx context.Context, w plan.Window) error {
	r := ph.r
	if !r.opt.Plan.Protocol.LatencyAfter(w) {
		return nil
	}
	lw := latencyWindow(w)
	if r.latencyDone[lw.Key] {
		return nil
	}
	rate, err := ph.latencyRate(w.Case, w.Concurrency)
	if err != nil {
		return err
	}
	if rate.RateRPS <= 0 {
		ph.failLatency(lw, "no offered rate: "+rate.Reason)
		return nil
	}
	c, _ := r.opt.File.CaseOf(w.Stack, w.Case)
	cur, err := ph.rounds.liveServer(ctx, w, func(msg string) { ph.failLatency(lw, msg) })
	if cur == nil {
		return err
	}
	cur, err = ph.rounds.tries(ctx, cur, lw, ph.latencyStream(cur, lw, c, rate.RateRPS), ph.journalLatency)
	ph.rounds.keepLive(w.Stack, cur)
	return err
}

// latencyStream is a latency window's load: the open loop at rateRPS
// with the cell's concurrency as its most requests in flight, after a
// fixed warm-up (plan.Protocol.FixedRateWarmup: the stack's floor after
// its closed-loop window, twice it where none ran), then judgeBehind.
func (ph *latencyPhase) latencyStream(cur *server, lw plan.Window, c workload.Case, rateRPS float64) loadStream {
	r := ph.r
	p := r.opt.Plan.Protocol
	warm := p.FixedRateWarmup(cur.stack, lw)
	return loadStream{c: c, conns: lw.Concurrency, rateRPS: rateRPS, warmup: warmupSpan{warm, warm}, window: p.Window,
		check: func(rec *journal.Window) {
			judgeBehind(rec, rec.Load)
			judgeWarming(rec)
		}}
}

// CostWarmingTolerance is how much more CPU a latency window's server may
// spend in the window's first half than in its second, at one offered
// rate, before the window is taken for one still warming up; and
// costWarmingMinSeconds the least CPU difference that counts (a few
// scheduler ticks' worth, so a near-idle server's noise does not).
const (
	CostWarmingTolerance  = 0.25
	costWarmingMinSeconds = 0.005
)

// maxWarmingRedos is how many times a latency window still warming up is
// redone on its process (within the tries the host's redos leave).
const maxWarmingRedos = 2

// judgeWarming flags a latency window whose server spent clearly more CPU
// in its first half than in its second (journal.FlagCostWarming): at a
// fixed rate each half serves the same requests, so the difference is
// the warm-up's — a JIT compiling, caches filling — and must not enter
// the cost. A window that fell behind is judged on its own flag.
func judgeWarming(rec *journal.Window) {
	first, second := rec.Server.FirstHalfCPUSeconds, rec.Server.SecondHalfCPUSeconds
	if rec.HasFlag(journal.FlagBehind) || first <= 0 || second <= 0 {
		return
	}
	if first > (1+CostWarmingTolerance)*second && first-second > costWarmingMinSeconds {
		flagger{rec}.add(journal.FlagCostWarming, "the server spent %.1f ms of CPU in the window's first half and %.1f ms in its second at the same offered rate (+%.0f %%): still warming up (a JIT compiling, caches filling), so the window does not count for cost",
			1e3*first, 1e3*second, 100*(first/second-1))
	}
}

// judgeBehind flags a latency window whose server did not keep up with
// its offered rate (journal.FlagBehind): what was due left unsent (beyond
// one per slot in flight: a connection, or over HTTP/2 a stream),
// unfinished or failed above MaxBehindShare each, or a served rate short
// of the offered one by more than MaxRateShortfall (and one). A flow
// case's window is judged on its flows, whose rate was offered, never on
// its steps' requests (behindOf).
func judgeBehind(rec *journal.Window, res *load.Result) {
	f := flagger{rec}
	b := behindOf(res)
	total := float64(b.sent + b.unsent)
	if total == 0 {
		f.add(journal.FlagBehind, "no %s was %s in the window at %.1f %s", b.one, b.sentVerb, res.Rate, b.unit)
		return
	}
	share := func(n int64) float64 { return float64(n) / total }
	slots := res.Slots()
	if float64(b.unsent) > MaxBehindShare*total+float64(slots) {
		f.add(journal.FlagBehind, "%d of the %s due (%.2f %%) were never %s (no %s was free at %d in flight): the server fell behind %.1f %s%s",
			b.unsent, b.noun, 100*share(b.unsent), b.sentVerb, b.slot, slots, res.Rate, b.unit, b.orUsers)
	}
	if s := share(b.unfinished); s > MaxBehindShare {
		f.add(journal.FlagBehind, "%.2f %% of the %s %s at the drain's end", 100*s, b.noun, b.unanswered)
	}
	if s := share(b.failed - b.unfinished); s > MaxBehindShare {
		f.add(journal.FlagBehind, "%.2f %% of the %s failed (%s)", 100*s, b.noun, load.ErrorSplit(b.errors))
	}
	if short := (res.Rate - b.served) * res.DurationSeconds; res.Rate > 0 && short > MaxRateShortfall*res.Rate*res.DurationSeconds+1 {
		f.add(journal.FlagBehind, "%s %.1f of %.1f %s offered (short by more than %.0f %%): a queue was growing",
			b.servedVerb, b.served, res.Rate, b.unit, 100*MaxRateShortfall)
	}
}

// journalLatency appends a latency window's try (fsynced) and updates the
// outcome.
func (ph *latencyPhase) journalLatency(rec *journal.Window) error {
	r := ph.r
	if err := r.jw.Append(journal.KindLatency, rec); err != nil {
		return err
	}
	if !rec.Final {
		r.progress.redo(rec)
		return nil
	}
	r.latencyDone[rec.Key] = true
	r.out.Latency++
	for _, f := range rec.Flags {
		r.out.Flagged[f]++
	}
	msg := fmt.Sprintf("latency %s", rec.Key)
	if l := rec.Load; l != nil && l.Flow != nil {
		msg += fmt.Sprintf(": %.1f of %.1f flows/s, flow p50 %s, p99 %s", l.Flow.FlowsPerSecond, l.Rate, micros(l.Flow.LatencyMicros.P50), micros(l.Flow.LatencyMicros.P99))
	} else if l != nil {
		msg += fmt.Sprintf(": %.1f of %.1f req/s, p50 %s, p99 %s", l.ThroughputRPS, l.Rate, micros(l.LatencyMicros.P50), micros(l.LatencyMicros.P99))
	}
	if len(rec.Flags) > 0 {
		msg += fmt.Sprintf(" [%s]", joinReasons(rec))
	}
	r.progress.logf("%s", msg)
	return nil
}

// failLatency journals a latency window that could not be measured.
func (ph *latencyPhase) failLatency(lw plan.Window, msg string) {
	r := ph.r
	if err := ph.journalLatency(r.failedRecord(lw, msg)); err != nil {
		r.progress.logf("journal: %v", err)
	}
}

// latencyRate is the offered rate of a case and concurrency's latency
// windows: the journaled one, or, the first time, the protocol's absolute
// rate or its share of the slowest stack's closed-loop median over the rate rounds
// (analysis.LatencyRate), journaled before any window uses it so that a
// resumed run reuses it.
func (ph *latencyPhase) latencyRate(cas string, conc int) (journal.LatencyRate, error) {
	r := ph.r
	key := latencyRateKey(cas, conc)
	if lr, ok := r.latencyRates[key]; ok {
		return lr, nil
	}
	l := *r.opt.Plan.Protocol.Latency
	lr := journal.LatencyRate{Case: cas, Concurrency: conc, RateRPS: l.RPS}
	if l.Share > 0 {
		res, err := journal.ReadDir(r.opt.Dir)
		if err != nil {
			return lr, fmt.Errorf("latency: read the journal: %w", err)
		}
		var stacks []string
		for _, s := range r.opt.Plan.Stacks {
			stacks = append(stacks, s.Name)
		}
		lr = analysis.LatencyRate(l.Share, r.opt.Plan.Protocol.RateRounds(), cas, conc, stacks, res.FinalWindows())
	}
	lr.Time = time.Now().UTC()
	// A flow case's rate, absolute or a share, is of flows: the plan says
	// which case is one, and the record names its rates so.
	if c, ok := r.opt.Plan.Case(cas); ok {
		lr.PerFlow = c.IsFlow()
	}
	if err := r.jw.Append(journal.KindLatencyRate, lr); err != nil {
		return lr, err
	}
	r.latencyRates[key] = lr
	unit := "req/s"
	if lr.PerFlow {
		unit = "flows/s"
	}
	switch {
	case lr.RateRPS <= 0:
		r.event(journal.LevelWarning, "", "latency %s c%d: no offered rate (%s); its latency windows are failed", cas, conc, lr.Reason)
	case lr.Share > 0:
		r.event(journal.LevelInfo, "", "latency %s c%d: offered rate fixed at %.1f %s (%g %% of %s's closed-loop median over %s, %.1f %s, the slowest)",
			cas, conc, lr.RateRPS, unit, 100*lr.Share, lr.Slowest, analysis.RoundsUpTo(r.opt.Plan.Protocol.RateRounds()), lr.MedianRPS[lr.Slowest], unit)
	default:
		r.event(journal.LevelInfo, "", "latency %s c%d: offered rate %.1f %s", cas, conc, lr.RateRPS, unit)
	}
	return lr, nil
}

func latencyRateKey(cas string, conc int) string { return fmt.Sprintf("%s/c%d", cas, conc) }

// readJournal loads what a stopped run journaled of its latency windows:
// the rates decided, the windows done and their tries.
func (ph *latencyPhase) readJournal(res *journal.Results) {
	r := ph.r
	for _, lr := range res.LatencyRates {
		key := latencyRateKey(lr.Case, lr.Concurrency)
		if _, ok := r.latencyRates[key]; !ok {
			r.latencyRates[key] = lr // the first decision stands
		}
	}
	for _, w := range res.Latency {
		r.attempts[w.Key] = max(r.attempts[w.Key], w.Attempt)
		r.seq[w.Stack] = max(r.seq[w.Stack], w.Process.Seq)
		if w.Final {
			r.latencyDone[w.Key] = true
		}
	}
}

// latencyLeft counts the plan's latency windows not yet journaled (done
// holds the keys of those that are).
func latencyLeft(p *plan.Plan, done map[string]bool) int {
	n := 0
	for _, w := range p.Windows {
		if p.Protocol.LatencyAfter(w) && !done[plan.LatencyKey(w)] {
			n++
		}
	}
	return n
}
