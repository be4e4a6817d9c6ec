package analysis

import (
	"fmt"
	"slices"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// Which windows count for cost (issue 43, item 3; docs/statistics.md,
// "Cost at a fixed rate"). A latency window whose server fell behind its
// offered rate by more than MaxCostShortfall, or failed more than
// MaxCostFailureShare of its requests, still counts for latency — that is
// its latency result (trap T24) — but not for cost: near saturation CPU
// per request falls (batching, fewer idle wake-ups), so a stack that
// cannot keep the rate would look cheaper by failing to do the work, and a
// request that failed early costs less than one served. A smaller
// shortfall moves the load, and with it the cost, by less than the
// shortfall itself: in the demo of 2026-12-06 cost per request fell 0.83 %
// for each 1 % more load between 40 % of saturation and saturation, so a
// window 0.4 % short (93 requests of 24,009 unsent) is 0.3 % cheaper at
// most, a tenth of the step's paired noise. Dropping every window with
// one request unsent had made a cell of 7 windows insufficient for cost
// with two such windows. A flow's window is judged the same way on its
// flows (costShortfall, flowFailureShare).

// MaxCostFailureShare is the largest failed share of a latency window's
// requests for it to count for cost: 1 %, the validity rule's.
const MaxCostFailureShare = 0.01

// MaxCostShortfall is the largest share of a latency window's due
// requests it may leave unserved (unsent, or its served rate under the
// offered one) and still count for cost: 1 %.
const MaxCostShortfall = 0.01

// costShortfall is the share of the window's due work it did not serve:
// the larger of its unsent share and how far its served rate fell under
// the offered one — of requests, or for a flow of flows (completed flows
// per second against the rate of flows).
func costShortfall(l *load.Result) float64 {
	sent, unsent, served := l.Attempts, l.Unsent, l.ThroughputRPS
	if f := l.Flow; f != nil {
		sent, unsent, served = f.Started, f.Unsent, f.FlowsPerSecond
	}
	s := 0.0
	if due := sent + unsent; due > 0 {
		s = float64(unsent) / float64(due)
	}
	if l.Rate > 0 {
		s = max(s, 1-served/l.Rate)
	}
	return s
}

// costDrop says why a latency window does not count for cost; "" when it
// does.
func costDrop(w *journal.Window) string {
	l := w.Load
	if l == nil {
		return ""
	}
	noun, what, unsent, failed := "requests", "requests due not served", l.Unsent, l.FailureShare()
	if l.Flow != nil {
		noun, what, unsent, failed = "flows", "flows due not completed", l.Flow.Unsent, flowFailureShare(l)
	}
	switch {
	case w.HasFlag(journal.FlagCostWarming):
		return "its server still warming up (more CPU in its first half)"
	case costShortfall(l) > MaxCostShortfall:
		return fmt.Sprintf("behind its offered rate (%.1f %% of the %s, %d unsent)", 100*costShortfall(l), what, unsent)
	case failed > MaxCostFailureShare:
		return fmt.Sprintf("%.1f %% of %s failed", 100*failed, noun)
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
