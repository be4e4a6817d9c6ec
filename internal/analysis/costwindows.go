package analysis

import (
	"fmt"
	"slices"

	"github.com/stackbench/stackbench/internal/journal"
)

// Which windows count for cost (issue 43, item 3; docs/statistics.md,
// "Cost at a fixed rate"). A latency window whose server fell behind its
// offered rate, left requests unsent or failed more than
// MaxCostFailureShare of them still counts for latency — that is its
// latency result (trap T24) — but not for cost: near saturation CPU per
// request falls (batching, fewer idle wake-ups), so a stack that cannot
// keep the rate would look cheaper by failing to do the work, and a
// request that failed early costs less than one served.

// MaxCostFailureShare is the largest failed share of a latency window's
// requests for it to count for cost: 1 %, the validity rule's.
const MaxCostFailureShare = 0.01

// costDrop says why a latency window does not count for cost; "" when it
// does.
func costDrop(w *journal.Window) string {
	l := w.Load
	switch {
	case l == nil:
		return ""
	case w.HasFlag(journal.FlagBehind):
		return "behind its offered rate"
	case w.HasFlag(journal.FlagCostWarming):
		return "its server still warming up (more CPU in its first half)"
	case l.Unsent > 0:
		return fmt.Sprintf("%d requests left unsent", l.Unsent)
	case l.FailureShare() > MaxCostFailureShare:
		return fmt.Sprintf("%.1f %% of requests failed", 100*l.FailureShare())
	}
	return ""
}

// costCell is a latency cell as the cost call sees it: its windows that
// do not count for cost (WindowFigures.CostDrop) left out, and its state
// decided again, so that a stack that could not keep the rate in more than
// a quarter of its windows has no cost at that rate (insufficient, and
// says why) instead of a low one.
func costCell(c Cell) Cell {
	if c.State != CellValid {
		return c
	}
	dropped, reason := 0, ""
	for _, w := range c.PerWindow {
		if w.Counted && w.CostDrop != "" {
			dropped++
			if reason == "" {
				reason = w.CostDrop
			}
		}
	}
	if dropped == 0 {
		return c
	}
	out := c
	out.PerWindow = slices.Clone(c.PerWindow)
	for i := range out.PerWindow {
		if out.PerWindow[i].CostDrop != "" {
			out.PerWindow[i].Counted = false
		}
	}
	out.Counted -= dropped
	if out.State, out.StateReason = majority(out.PerWindow); out.State != CellValid {
		out.StateReason = fmt.Sprintf("for cost, %d of %d windows do not count (first: %s) — %s", dropped, len(c.PerWindow), reason, out.StateReason)
	}
	return out
}
