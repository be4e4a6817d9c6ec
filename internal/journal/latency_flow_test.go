package journal

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A flow case's offered rate is of flows: the record names it in flows per
// second, never rate_rps, and reads back the same.
func TestLatencyRateOfAFlowIsNamedInFlows(t *testing.T) {
	at := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	for _, lr := range []LatencyRate{
		{Case: "session", Concurrency: 8, Time: at, RateRPS: 120.5, Share: 0.4, MedianRPS: map[string]float64{"a": 301.25}, Slowest: "a", PerFlow: true},
		{Case: "user", Concurrency: 8, Time: at, RateRPS: 2000, Share: 0.4, MedianRPS: map[string]float64{"a": 5000}, Slowest: "a"},
	} {
		data, err := json.Marshal(lr)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		flowNames := strings.Contains(s, `"rate_flows_per_s":120.5`) && strings.Contains(s, `"median_flows_per_s":{"a":301.25}`)
		requestNames := strings.Contains(s, `"rate_rps"`) || strings.Contains(s, `"median_rps"`)
		if lr.PerFlow && (!flowNames || requestNames) || !lr.PerFlow && (!requestNames || strings.Contains(s, "flows_per_s")) {
			t.Errorf("per flow %v: written as %s", lr.PerFlow, s)
		}
		var back LatencyRate
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(back)
		if string(again) != s || back.RateRPS != lr.RateRPS || back.MedianRPS["a"] != lr.MedianRPS["a"] {
			t.Errorf("read back %+v (%s), wrote %s", back, again, s)
		}
	}
}
