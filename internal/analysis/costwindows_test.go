package analysis

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/stats"
)

// Issue 43, item 3: a latency window that fell behind its offered rate
// counts for latency but not for cost. Here b costs the same as a per
// request when it keeps the rate; in the windows where it falls behind it
// serves fewer requests at saturation, where CPU per request is lower
// (b's cost 30 % under a's in those windows). Counted, those windows made
// b a cost gain; left out, b is the same, and when it falls behind in
// more than a quarter of its windows it has no cost at that rate at all.
func TestBehindWindowsDoNotCountForCost(t *testing.T) {
	for _, c := range []struct {
		behind []int
		want   stats.Call
	}{{nil, stats.CallSame}, {[]int{3}, stats.CallSame}, {[]int{2, 3, 4, 5, 6, 7}, stats.CallInvalid}} {
		res := latencyJournal(t, 9, 1, false)
		for i := range res.Latency {
			w := &res.Latency[i]
			w.Server.Cores, w.Database.Cores = 0.25*(1+0.001*float64(w.Round%3)), 0.1
			if w.Stack != "b" {
				continue
			}
			for _, r := range c.behind {
				if w.Round == r {
					w.Flags = []journal.Flag{journal.FlagBehind}
					w.Load.Unsent = 40
					w.Server.Cores *= 0.7
				}
			}
		}
		m, err := FromResults(res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := m.Steps[0]
		if s.Cost == nil || s.Cost.Call != c.want {
			t.Errorf("b behind in rounds %v: cost %+v; want %s", c.behind, s.Cost, c.want)
			continue
		}
		if len(c.behind) > 0 && c.want == stats.CallSame && s.Cost.ToWindows != 8-len(c.behind) {
			t.Errorf("b behind in rounds %v: cost from %d of b's windows; want %d", c.behind, s.Cost.ToWindows, 8-len(c.behind))
		}
		if c.want == stats.CallInvalid && !strings.Contains(s.Cost.Reason, "behind its offered rate") {
			t.Errorf("invalid cost without its reason: %q", s.Cost.Reason)
		}
		// The windows still count for latency.
		if lc, _ := m.LatencyCell("b", "x", 4); lc.Counted != 8 {
			t.Errorf("b's latency cell counts %d windows; want all 8", lc.Counted)
		}
	}
}

// A window a little behind its rate — 2 requests of 502 unsent, 0.4 %,
// flagged behind for latency — still counts for cost: its load moved by
// less than MaxCostShortfall. Dropping it made a 7-window cell of the demo
// insufficient for cost over 93 unsent requests of 24,009.
func TestASmallShortfallCountsForCost(t *testing.T) {
	res := latencyJournal(t, 9, 1, false)
	for i := range res.Latency {
		w := &res.Latency[i]
		w.Server.Cores, w.Database.Cores = 0.25*(1+0.001*float64(w.Round%3)), 0.1
		if w.Stack == "b" && (w.Round == 3 || w.Round == 5) {
			w.Flags = []journal.Flag{journal.FlagBehind}
			w.Load.Unsent, w.Load.Rate = 2, 502
		}
	}
	m, err := FromResults(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Steps[0].Cost; c == nil || c.Call != stats.CallSame || c.ToWindows != 8 {
		t.Errorf("cost %+v; want same, from all 8 of b's windows", c)
	}
	for _, l := range []load.Result{{Attempts: 989, Unsent: 11}, {Attempts: 1000, Rate: 1000, ThroughputRPS: 985}} {
		if s := costShortfall(&l); s <= MaxCostShortfall {
			t.Errorf("%+v: shortfall %.4f, want over %.2f", l, s, MaxCostShortfall)
		}
	}
}
