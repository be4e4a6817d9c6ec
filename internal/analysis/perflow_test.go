package analysis

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// flowWindow is a closed-loop or latency window of a two-step flow: fps
// completed flows a second (twice as many requests) over 1 s.
func flowWindow(t *testing.T, stack string, round int, fps float64) journal.Window {
	t.Helper()
	h := hist.New(time.Minute)
	for range int(fps) {
		h.RecordMicros(20_000)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return journal.Window{Round: round, Stack: stack, Case: "session", Concurrency: 4,
		Server: journal.Usage{Cores: 0.5},
		Load: &load.Result{DurationSeconds: 1, Successes: int64(2 * fps), Attempts: int64(2 * fps), ThroughputRPS: 2 * fps, TimeoutSeconds: 60,
			Errors: map[string]int64{}, LatencyHist: enc,
			Flow: &load.FlowResult{Started: int64(fps), Completed: int64(fps), FlowsPerSecond: fps, Failures: map[string]int64{}, LatencyHist: enc}}}
}

// A flow case's rate is of flows: share × the slowest stack's median
// completed flows per second, not its requests per second (twice as
// many here).
func TestLatencyRateOfAFlowIsInFlows(t *testing.T) {
	ws := []journal.Window{flowWindow(t, "a", 1, 400), flowWindow(t, "b", 1, 300)}
	lr := LatencyRate(0.5, 1, "session", 4, []string{"a", "b"}, ws)
	if lr.Slowest != "b" || lr.RateRPS != 150 || lr.MedianRPS["a"] != 400 {
		t.Errorf("rate %+v; want half b's 300 flows/s", lr)
	}
}

// A flow's latency window: its cost is per completed flow, its failed
// flows lie at the timeout in its latency, and one that failed more than
// 1 % of its flows or fell more than 1 % short of the rate in flows does
// not count for cost — judged on flows, whatever its requests did.
func TestFlowWindowCostAndLatency(t *testing.T) {
	w := flowWindow(t, "a", 2, 100)
	w.Load.Rate = 100
	f := windowFigures(&w)
	if !f.PerFlow || f.FlowsPerSecond != 100 || f.CostMicrosPerFlow != 5000 || f.CostMicros != 2500 || callCost(f) != 5000 || callServed(f) != 100 {
		t.Errorf("figures %+v; want 5,000 CPU-µs per flow (2,500 per request)", f)
	}
	if d := costDrop(&w); d != "" {
		t.Errorf("a window that kept the rate: %q", d)
	}
	w.Load.Flow.Failed, w.Load.Flow.Failures["me: status_500"] = 2, 2
	h, err := latencyWindowHist(&w, time.Minute)
	if err != nil || h.Count() != 102 || h.MaxMicros() < 59_000_000 {
		t.Errorf("flow latency: %d values, max %d µs; want the 100 flows and the 2 failed at the 60 s timeout (%v)", h.Count(), h.MaxMicros(), err)
	}
	if d := costDrop(&w); !strings.Contains(d, "of flows failed") {
		t.Errorf("2 %% of flows failed: %q", d)
	}
	w.Load.Flow.Failed, w.Load.Flow.Failures = 0, map[string]int64{}
	w.Load.Flow.FlowsPerSecond = 97
	if d := costDrop(&w); !strings.Contains(d, "flows due not completed") {
		t.Errorf("3 %% short in flows: %q", d)
	}
}

// report.json names a flow's rate and costs per flow, and reads them back.
func TestPerFlowJSONNames(t *testing.T) {
	cl := CostLoads{RateRPS: 150, FromFixedMicros: 5000, ToFixedMicros: 4000, FromSatRPS: 300, PerFlow: true}
	data, err := json.Marshal(cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"rate_flows_per_s":150`, `"from_fixed_us_per_flow":5000`, `"from_saturation_flows_per_s":300`, `"per_flow":true`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %s", data, want)
		}
	}
	if strings.Contains(string(data), "per_req") || strings.Contains(string(data), "rate_rps") {
		t.Errorf("%s names a flow's figures per request", data)
	}
	var back CostLoads
	if err := json.Unmarshal(data, &back); err != nil || back != cl {
		t.Errorf("read back %+v, %v", back, err)
	}
	ri := LatencyRateInfo{Case: "session", RateRPS: 150, Slowest: "b", SlowestRPS: 300, PerFlow: true}
	data, _ = json.Marshal(ri)
	var rback LatencyRateInfo
	if err := json.Unmarshal(data, &rback); err != nil || rback != ri || !strings.Contains(string(data), `"rate_flows_per_s":150`) {
		t.Errorf("rate %s read back %+v, %v", data, rback, err)
	}
	// A request case's names are as before.
	data, _ = json.Marshal(CostLoads{RateRPS: 800, FromFixedMicros: 40})
	if !strings.Contains(string(data), `"rate_rps":800`) || !strings.Contains(string(data), `"from_fixed_us_per_req":40`) || strings.Contains(string(data), "per_flow") {
		t.Errorf("request case: %s", data)
	}
}
