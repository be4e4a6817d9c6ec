package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// constMeter reports the same foreign CPU after a short pause.
func constMeter(cores float64) ForeignMeter {
	return func(ctx context.Context, d time.Duration) (float64, error) {
		time.Sleep(time.Millisecond)
		return cores, nil
	}
}

func TestNewGateThreshold(t *testing.T) {
	b := Baseline{MeanCores: 0.3, Duration: 3 * time.Second}
	g, warn := NewGate(b, 0, 2, constMeter(0))
	if g.ThresholdCores != 0.3+DefaultGateMarginCores || g.Explicit || len(warn) != 0 {
		t.Errorf("default gate: %+v, warnings %q", g, warn)
	}
	g, warn = NewGate(b, 1.5, 2, constMeter(0))
	if g.ThresholdCores != 1.5 || !g.Explicit || len(warn) != 0 {
		t.Errorf("explicit gate above the baseline: %+v, warnings %q", g, warn)
	}
	// Trap T6: the machine idles above the explicit gate.
	g, warn = NewGate(Baseline{MeanCores: 0.8}, 0.5, 2, constMeter(0))
	if len(warn) != 1 || !strings.Contains(warn[0], "below the machine's idle foreign CPU") {
		t.Errorf("explicit gate below the baseline: warnings %q", warn)
	}
	if g.ThresholdCores != 0.5 {
		t.Errorf("the warning must not change the explicit gate: %v", g.ThresholdCores)
	}
}

func TestJudgeRespectsRetryBudget(t *testing.T) {
	g, _ := NewGate(Baseline{}, 1.0, 2, constMeter(0))
	tests := []struct {
		attempt   int
		foreign   float64
		suspended bool
		want      Verdict
	}{
		{0, 0.5, false, Verdict{Action: Accept}},
		{0, 1.0, false, Verdict{Action: Accept}}, // at the gate is not across it
		{0, 1.2, false, Verdict{Action: Redo, Contended: true}},
		{1, 1.2, false, Verdict{Action: Redo, Contended: true}},
		{2, 1.2, false, Verdict{Action: Keep, Contended: true}},
		{0, 0.1, true, Verdict{Action: Redo, Suspended: true}},
		{2, 0.1, true, Verdict{Action: Keep, Suspended: true}},
		{5, 0.5, false, Verdict{Action: Accept}},
	}
	for _, tc := range tests {
		got := g.Judge(tc.attempt, tc.foreign, tc.suspended)
		if got.Action != tc.want.Action || got.Contended != tc.want.Contended || got.Suspended != tc.want.Suspended {
			t.Errorf("Judge(%d, %.1f, %v) = %+v, want %+v", tc.attempt, tc.foreign, tc.suspended, got, tc.want)
		}
		if (got.Action == Accept) != (got.Reason == "") {
			t.Errorf("Judge(%d, %.1f, %v): reason %q", tc.attempt, tc.foreign, tc.suspended, got.Reason)
		}
	}
}

func TestWaitQuietIsBounded(t *testing.T) {
	g, _ := NewGate(Baseline{}, 0.5, 1, constMeter(1.5))
	g.Step = 10 * time.Millisecond
	start := time.Now()
	q, err := g.WaitQuiet(context.Background(), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if q.Quiet || q.ForeignCores != 1.5 || q.Waited < 100*time.Millisecond || time.Since(start) > 5*time.Second || q.Steps < 2 {
		t.Errorf("WaitQuiet on a machine that never quiets: %+v after %v", q, time.Since(start))
	}
	g, _ = NewGate(Baseline{}, 0.5, 1, constMeter(0.2))
	q, err = g.WaitQuiet(context.Background(), time.Hour)
	if err != nil || !q.Quiet || q.Steps != 1 {
		t.Errorf("WaitQuiet on a quiet machine: %+v, %v", q, err)
	}
}

func TestMeasureBaseline(t *testing.T) {
	i := 0
	m := func(ctx context.Context, d time.Duration) (float64, error) {
		i++
		return float64(i % 2), nil // 1, 0, 1, 0, ...
	}
	b, err := MeasureBaseline(context.Background(), 4*DefaultGateStep, m)
	if err != nil {
		t.Fatal(err)
	}
	if b.Steps != 4 || b.MeanCores != 0.5 || b.MaxCores != 1 || b.Duration != 4*DefaultGateStep {
		t.Errorf("MeasureBaseline = %+v", b)
	}
}

func TestVerdictJSON(t *testing.T) {
	b, err := json.Marshal(Verdict{Action: Keep, Contended: true, Reason: "r"})
	if err != nil || !strings.Contains(string(b), `"action":"keep"`) {
		t.Fatalf("%s, %v", b, err)
	}
	var v Verdict
	if err := json.Unmarshal(b, &v); err != nil || v.Action != Keep {
		t.Errorf("round trip: %+v, %v", v, err)
	}
}
