package run

import (
	"fmt"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// MaxGeneratorWaitShare is the longest the load generator may wait for a
// CPU, as a share of the CPU time it used in the window, before the window
// is flagged client_starved: 100 %, it waited as long as it ran. A light
// generator (a slow route) uses little CPU, so its wait must also pass
// MinStarvedWaitShare of the window to count. See docs/traps.md (T10).
const MaxGeneratorWaitShare = 1.0

// MinStarvedWaitShare is the least wait, as a share of the window's wall
// time, that can make a window client_starved: 10 %.
const MinStarvedWaitShare = 0.10

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
		f.add(journal.FlagInvalid, "%.2f%% of %d requests failed (%s)",
			100*res.FailureShare(), res.Attempts+res.Unsent, failureSplit(res))
	}
	if wu := res.Warmup; res.WarmupSeconds > 0 {
		switch {
		case wu.Attempts == 0 || wu.Successes == 0:
			f.add(journal.FlagInvalid, "the warm-up failed: %d of %d attempts succeeded", wu.Successes, wu.Attempts)
		case float64(wu.Attempts-wu.Successes) > MaxFailureRatio*float64(wu.Attempts):
			f.add(journal.FlagInvalid, "the warm-up failed: %d of %d attempts failed", wu.Attempts-wu.Successes, wu.Attempts)
		}
	}
	if res.GeneratorCPUSeconds > 0 && res.GeneratorWaitSeconds > MaxGeneratorWaitShare*res.GeneratorCPUSeconds &&
		res.GeneratorWaitSeconds > MinStarvedWaitShare*res.DurationSeconds {
		f.add(journal.FlagClientStarved, "the load generator waited %.2f s for a CPU while it ran %.2f CPU-s (more than %.0f %% of it): it shared its cores with the server and could not send as meant",
			res.GeneratorWaitSeconds, res.GeneratorCPUSeconds, 100*MaxGeneratorWaitShare)
	}
	if res.ClientBound {
		f.add(journal.FlagClientBound, "the load generator used %.2f CPU-s in %.2f s on %d cores (≥ 85 %%): the figure describes the generator more than the server",
			res.GeneratorCPUSeconds, res.DurationSeconds, res.CoresAvailable)
	}
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
