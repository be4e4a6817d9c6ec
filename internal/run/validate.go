package run

import (
	"fmt"
	"math"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// MaxGeneratorWaitShare is the longest the load generator's threads may
// wait for a CPU, as a share of the window's wall time, before the window
// is flagged client_starved: 80 %, a generator that barely ran. On this
// project's 2-core host, with the server and PostgreSQL beside it, every
// window of a quiet run has the generator waiting 50–70 % of the window
// (1.0–1.4 s of 2 s), at 0.8 to 4.5 times its own CPU time, so neither the
// wait/CPU ratio nor a lower share tells a starved window from a normal
// one there (docs/traps.md, T10).
const MaxGeneratorWaitShare = 0.80

// MaxFailureRatio is the share of failed attempts above which a window is
// invalid (trap T2): 1 %.
const MaxFailureRatio = 0.01

// flagger collects a window's flags and their reasons.
type flagger struct{ w *journal.Window }

// add raises flag on the window (once) and records why.
func (f flagger) add(flag journal.Flag, format string, a ...any) {
	if !f.w.HasFlag(flag) {
		f.w.Flags = append(f.w.Flags, flag)
	}
	f.w.Reasons = append(f.w.Reasons, flag.Reason(fmt.Sprintf(format, a...)))
}

// judgeLoad applies the checks that depend only on the load result: failures
// in the window or the warm-up, and a client-bound generator.
func judgeLoad(w *journal.Window, res *load.Result) {
	f := flagger{w}
	switch {
	case res.Attempts == 0:
		f.add(journal.FlagInvalid, "no request completed in the window")
	case res.FailureShare() > MaxFailureRatio:
		// Failures count every error class, the requests unfinished at the
		// drain's end included (trap T16), and unsent ones in open loop.
		f.add(journal.FlagInvalid, "%.2f%% of %d requests failed (%s)%s",
			100*res.FailureShare(), res.Attempts+res.Unsent, failureSplit(res), windowTooShort(res))
	}
	judgeWarmup(w, res)
	judgeStarved(w, res, "the load generator")
}

// judgeMerged is judgeLoad for a window loaded from several generator
// hosts: the failures and the warm-up are judged on the merged result
// (a window is valid only if every generator's requests were), the
// starvation on each generator's own (parts, of the hosts in hosts).
func judgeMerged(w *journal.Window, merged *load.Result, parts []*load.Result, hosts []string) {
	wait, clientBound := merged.GeneratorWaitSeconds, merged.ClientBound
	merged.GeneratorWaitSeconds, merged.ClientBound = 0, false // judged per generator below
	judgeLoad(w, merged)
	merged.GeneratorWaitSeconds, merged.ClientBound = wait, clientBound
	for i, p := range parts {
		judgeStarved(w, p, "the load generator on "+hosts[i])
	}
}

// judgeStarved flags a generator (who) that waited for a CPU for most of
// its window, or was bound by its own CPU. With generators on several
// hosts each is judged on its own result, so that one starved generator
// is not hidden by the others' idle time.
func judgeStarved(w *journal.Window, res *load.Result, who string) {
	f := flagger{w}
	if res.DurationSeconds > 0 && res.GeneratorWaitSeconds > MaxGeneratorWaitShare*res.DurationSeconds {
		f.add(journal.FlagClientStarved, "%s waited %.2f s for a CPU in a %.2f s window (more than %.0f %% of it; it ran %.2f CPU-s): it could not send as meant",
			who, res.GeneratorWaitSeconds, res.DurationSeconds, 100*MaxGeneratorWaitShare, res.GeneratorCPUSeconds)
	}
	if res.ClientBound {
		f.add(journal.FlagClientBound, "%s used %.2f CPU-s in %.2f s on %d cores (≥ 85 %%): the figure describes the generator more than the server",
			who, res.GeneratorCPUSeconds, res.DurationSeconds, res.CoresAvailable)
	}
}

// judgeWarmup flags a warm-up whose requests failed (a warm-up in which
// none completed yet has not failed: a slow route), one that reached its
// cap before it was steady, and a window whose halves show a trend.
func judgeWarmup(w *journal.Window, res *load.Result) {
	f := flagger{w}
	if wu := res.Warmup; res.WarmupSeconds > 0 && float64(wu.Errors) > MaxFailureRatio*float64(wu.Attempts) {
		f.add(journal.FlagInvalid, "the warm-up failed: %d of %d completed attempts failed", wu.Errors, wu.Attempts)
	}
	if res.WarmupEnd == "cap" {
		f.add(journal.FlagNotSteady, "the warm-up reached its cap of %.2f s before its throughput was steady (completions per %.0f ms slice: %s)",
			res.WarmupSeconds, 1000*res.WarmupSliceSeconds, lastSlices(res.WarmupSlices, 6))
	}
	if change, clear := load.Trend(res.Halves[0], res.Halves[1], res.Connections); clear && !res.Interrupted {
		f.add(journal.FlagTrend, "the window's second half served %+.1f %% against its first (%d → %d successes), more than the %.0f %% tolerance and counting noise: the process was still warming up or slowing down",
			100*change, res.Halves[0], res.Halves[1], 100*load.SteadyTolerance)
	}
}

// slowRouteShare is the share of the window a route's p99 may take before
// the requests still open at the window's end are its own slowness, not a
// failure of the server: a window needs many round trips of the route.
const slowRouteShare = 0.2

// windowTooShort says, for a window failed mostly by requests still open
// at its end, when the route itself is too slow for the window (quick's
// 1 s against a p99 over a second) and which window to give it; "" when
// that is not why.
func windowTooShort(res *load.Result) string {
	unfinished := res.Errors["unfinished"]
	if unfinished == 0 || 2*unfinished < res.ErrorCount() || res.DurationSeconds <= 0 {
		return ""
	}
	p99 := max(res.LatencyMicros.P99, res.ErrorLatencyMicros.P99)
	seconds := float64(p99) / 1e6
	if seconds < slowRouteShare*res.DurationSeconds {
		return ""
	}
	want := max(5, int(math.Ceil(seconds/slowRouteShare)))
	return fmt.Sprintf("; the route's p99 is %.2f s against a %.2f s window, so requests still open at its end fail it: give it a window of %d s or more (--window %ds, or protocol: window: %ds)",
		seconds, res.DurationSeconds, want, want, want)
}

// lastSlices writes the last n counts, "… 120, 340, 410".
func lastSlices(counts []int64, n int) string {
	var b strings.Builder
	if len(counts) > n {
		b.WriteString("…, ")
		counts = counts[len(counts)-n:]
	}
	for i, c := range counts {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, c)
	}
	return b.String()
}

// judgeDB flags a checkpoint that landed in the window (trap T4).
func judgeDB(w *journal.Window) {
	if w.DBBefore == nil || w.DBAfter == nil {
		return
	}
	if n := w.DBAfter.Checkpoints - w.DBBefore.Checkpoints; n > 0 {
		flagger{w}.add(journal.FlagCheckpoint, "%d checkpoint(s) happened during the warm-up or the window", n)
	}
}

// failureSplit is the error split, with the unsent requests when any.
func failureSplit(res *load.Result) string {
	s := load.ErrorSplit(res.Errors)
	if res.Unsent > 0 {
		s += fmt.Sprintf("; unsent %d", res.Unsent)
	}
	return s
}
