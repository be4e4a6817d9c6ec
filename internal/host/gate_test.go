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
	b := Baseline{MeanCores: 0.03, Duration: 3 * time.Second}
	g, warn := NewGate(b, 0, 2, 2, constMeter(0))
	if g.ThresholdCores != BusyCores(2) || g.Explicit || len(warn) != 0 {
		t.Errorf("default gate on 2 cores (rest + margin, capped at a quarter core): %+v, warnings %q", g, warn)
	}
	g, _ = NewGate(b, 0, 2, 32, constMeter(0))
	if g.ThresholdCores != 0.03+DefaultGateMarginCores {
		t.Errorf("default gate on 32 cores: %v, want rest + margin", g.ThresholdCores)
	}
	g, warn = NewGate(b, 1.5, 2, 2, constMeter(0))
	if g.ThresholdCores != 1.5 || !g.Explicit || len(warn) != 0 {
		t.Errorf("explicit gate above the baseline: %+v, warnings %q", g, warn)
	}
	// Trap T6: the machine idles above the explicit gate.
	g, warn = NewGate(Baseline{MeanCores: 0.8}, 0.5, 2, 2, constMeter(0))
	if len(warn) != 1 || !strings.Contains(warn[0], "below the machine's idle foreign CPU") {
		t.Errorf("explicit gate below the baseline: warnings %q", warn)
	}
	if g.ThresholdCores != 0.5 {
		t.Errorf("the warning must not change the explicit gate: %v", g.ThresholdCores)
	}
	// Trap T15: a host busy at calibration (0.96 cores at rest on 2 cores)
	// gets the absolute gate and a loud warning, never rest + margin.
	g, warn = NewGate(Baseline{MeanCores: 0.96, Duration: 3 * time.Second}, 0, 1, 2, constMeter(0))
	if g.ThresholdCores != BusyCores(2) || len(warn) != 1 || !strings.Contains(warn[0], "host was busy when the contention gate calibrated") {
		t.Errorf("busy calibration: gate %v, warnings %q", g.ThresholdCores, warn)
	}
}

func TestBaselineUsesALowQuantile(t *testing.T) {
	// A daemon's burst in 3 of 12 steps moves the mean, not the rest.
	steps := []float64{0.02, 0.01, 1.9, 0.02, 0.03, 1.8, 0.01, 0.02, 1.7, 0.02, 0.01, 0.03}
	i := 0
	m := func(ctx context.Context, d time.Duration) (float64, error) { i++; return steps[(i-1)%len(steps)], nil }
	b, err := MeasureBaseline(context.Background(), 12*DefaultGateStep, m)
	if err != nil {
		t.Fatal(err)
	}
	if b.Rest() > 0.02 || b.MeanCores < 0.4 || b.Busy(2) {
		t.Errorf("baseline %+v: rest %v", b, b.Rest())
	}
}

func TestMeasureQuietBaselineWaitsForQuiet(t *testing.T) {
	// Busy for the first 3 measurements (a hog that ends), then quiet.
	calls := 0
	m := func(ctx context.Context, d time.Duration) (float64, error) {
		calls++
		if calls <= 3 {
			return 1.0, nil
		}
		return 0.01, nil
	}
	b, err := MeasureQuietBaseline(context.Background(), 3*time.Millisecond, time.Minute, 2, m)
	if err != nil || b.Busy(2) || calls < 4 {
		t.Errorf("after the hog: %+v, %d calls, %v", b, calls, err)
	}
	// A host that never quiets: bounded by maxWait, and still busy.
	start := time.Now()
	b, err = MeasureQuietBaseline(context.Background(), 3*time.Millisecond, 50*time.Millisecond, 2, constMeter(1.0))
	if err != nil || !b.Busy(2) || time.Since(start) > 5*time.Second || b.Waited <= 0 {
		t.Errorf("never quiet: %+v after %v, %v", b, time.Since(start), err)
	}
}

func TestJudgeRespectsRetryBudget(t *testing.T) {
	g, _ := NewGate(Baseline{}, 1.0, 2, 2, constMeter(0))
	tests := []struct {
		attempt   int
		foreign   float64
		suspended bool
		want      Verdict
	}{
		{0, 0.5, false, Verdict{Action: Accept}},
		{0, 0.99, false, Verdict{Action: Accept}},
		{0, 1.0, false, Verdict{Action: Redo, Contended: true}}, // reaching the gate is contended
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
	g, _ := NewGate(Baseline{}, 0.5, 1, 2, constMeter(1.5))
	g.Step = 10 * time.Millisecond
	start := time.Now()
	q, err := g.WaitQuiet(context.Background(), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if q.Quiet || q.ForeignCores != 1.5 || q.Waited < 100*time.Millisecond || time.Since(start) > 5*time.Second || q.Steps < 2 {
		t.Errorf("WaitQuiet on a machine that never quiets: %+v after %v", q, time.Since(start))
	}
	g, _ = NewGate(Baseline{}, 0.5, 1, 2, constMeter(0.2))
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
