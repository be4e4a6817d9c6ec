package run

import (
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// judgeFlowsBehind is judgeBehind for a flow case's latency window, whose
// offered rate is of flows (load --flow -R): the same limits on flows —
// unsent flows (no user was free to start one; one per user more is
// allowed), unfinished ones (a step still unanswered at the drain's end)
// and otherwise failed ones above MaxBehindShare each of the flows due,
// or completed flows per second short of the offered rate by more than
// MaxRateShortfall (and a flow). A failed flow is never throughput.
func judgeFlowsBehind(f flagger, res *load.Result) {
	fl := res.Flow
	due := float64(fl.Started + fl.Unsent)
	if due == 0 {
		f.add(journal.FlagBehind, "no flow was started in the window at %.1f flows/s", res.Rate)
		return
	}
	share := func(n int64) float64 { return float64(n) / due }
	if float64(fl.Unsent) > MaxBehindShare*due+float64(res.Connections) {
		f.add(journal.FlagBehind, "%d of the flows due (%.2f %%) were never started (no user was free at %d users): the server fell behind %.1f flows/s",
			fl.Unsent, 100*share(fl.Unsent), res.Connections, res.Rate)
	}
	var unfinished int64
	for k, n := range fl.Failures {
		if strings.HasSuffix(k, ": unfinished") {
			unfinished += n
		}
	}
	if s := share(unfinished); s > MaxBehindShare {
		f.add(journal.FlagBehind, "%.2f %% of the flows had a step still unanswered at the drain's end", 100*s)
	}
	if s := share(fl.Failed - unfinished); s > MaxBehindShare {
		f.add(journal.FlagBehind, "%.2f %% of the flows failed (%s)", 100*s, load.ErrorSplit(fl.Failures))
	}
	if short := (res.Rate - fl.FlowsPerSecond) * res.DurationSeconds; res.Rate > 0 && short > MaxRateShortfall*res.Rate*res.DurationSeconds+1 {
		f.add(journal.FlagBehind, "completed %.1f of %.1f flows/s offered (short by more than %.0f %%): a queue was growing",
			fl.FlowsPerSecond, res.Rate, 100*MaxRateShortfall)
	}
}
