package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// The automatic gate is the idle baseline plus 0.25 cores (capped): on a host whose
// other processes already use most of its CPUs the threshold passes the
// core count, foreign CPU can never cross it, and a saturated host would be
// reported as clean without a word.
func TestUnreachableGateIsAWarning(t *testing.T) {
	// An explicit gate at or above the host's CPUs can never be crossed.
	// (The automatic gate cannot get there: it is capped at
	// host.BusyCores, see host's tests.)
	b := host.Baseline{MeanCores: 1.89, Duration: 3 * time.Second}
	w := unreachableGateWarning(2.39, b, 2)
	if !strings.Contains(w, "can never be crossed") || !strings.Contains(w, "2.39") || !strings.Contains(w, "1.89") {
		t.Errorf("gate 2.39 on 2 CPUs: warning %q, want one naming the gate and the baseline", w)
	}
	g, _ := host.NewGate(b, 0, 1, 2, nil)
	if w := unreachableGateWarning(g.ThresholdCores, b, 2); w != "" {
		t.Errorf("the automatic gate on a host busy at rest (%.2f) must stay crossable, warned %q", g.ThresholdCores, w)
	}
	if w := unreachableGateWarning(2, b, 2); w == "" {
		t.Error("a gate equal to the host's CPUs can never be crossed either, but gave no warning")
	}
	if w := unreachableGateWarning(0.8, host.Baseline{MeanCores: 0.3}, 2); w != "" {
		t.Errorf("gate 0.8 on 2 CPUs can fire, but warned: %q", w)
	}
	if w := unreachableGateWarning(0.8, host.Baseline{MeanCores: 0.3}, 0); w != "" {
		t.Errorf("unknown CPU count: warned %q", w)
	}
}

// A window both suspended and contended carries both flags, each with its
// own reason: the gate's single reason names the suspension only.
func TestJudgeSuspendedAndContended(t *testing.T) {
	g, _ := host.NewGate(host.Baseline{}, 0.5, 1, 2, nil)
	r := &hostWatch{gate: g}
	rec := &journal.Window{ForeignCores: 1.2, Suspended: true}
	if !r.judge(rec, 0) {
		t.Error("first disturbed try: not redone")
	}
	if !rec.HasFlag(journal.FlagContended) || !rec.HasFlag(journal.FlagSuspended) {
		t.Fatalf("flags %v, want contended and suspended", rec.Flags)
	}
	for _, reason := range rec.Reasons {
		if strings.HasPrefix(reason, string(journal.FlagContended)+":") && !strings.Contains(reason, "foreign CPU 1.20") {
			t.Errorf("contended reason %q does not give the foreign CPU", reason)
		}
		if strings.HasPrefix(reason, string(journal.FlagSuspended)+":") && !strings.Contains(reason, "suspended") {
			t.Errorf("suspended reason %q does not say the machine was suspended", reason)
		}
	}
	rec = &journal.Window{ForeignCores: 1.2}
	if r.judge(rec, 1) {
		t.Error("retry budget spent: redone again")
	}
	if len(rec.Reasons) != 1 || !strings.Contains(rec.Reasons[0], "kept after 2 attempts") {
		t.Errorf("kept contended window: reasons %q, want the gate's reason with the retry budget", rec.Reasons)
	}
}

// A window whose host-speed probe ran slow is flagged host_slow and redone
// within the budget, with or without a gate (trap T18); a probe within the
// share is not.
func TestJudgeHostSlow(t *testing.T) {
	g, _ := host.NewGate(host.Baseline{}, 0.5, 1, 2, nil)
	slow := &journal.Probe{BeforeMs: 2.0, AfterMs: 2.5, ReferenceMs: 2.0} // 25 % slower after
	fine := &journal.Probe{BeforeMs: 2.1, AfterMs: 2.3, ReferenceMs: 2.0} // 15 %
	r := &hostWatch{gate: g}
	rec := &journal.Window{ForeignCores: 0.1, Probe: slow}
	if !r.judge(rec, 0) || !rec.HasFlag(journal.FlagHostSlow) || !strings.Contains(strings.Join(rec.Reasons, ";"), "25% slower") {
		t.Errorf("a slow host: flags %v, reasons %v", rec.Flags, rec.Reasons)
	}
	rec = &journal.Window{ForeignCores: 0.1, Probe: slow}
	if r.judge(rec, g.Retries) || !rec.HasFlag(journal.FlagHostSlow) {
		t.Errorf("budget spent, yet redone (or not flagged: %v)", rec.Flags)
	}
	rec = &journal.Window{ForeignCores: 0.1, Probe: fine}
	if r.judge(rec, 0) || len(rec.Flags) != 0 {
		t.Errorf("15 %% slower is within the share: flags %v", rec.Flags)
	}
	// gate: off checks no window for the host: the probe is kept, not judged.
	rec = &journal.Window{ForeignCores: 0.1, Probe: slow}
	if (&hostWatch{}).judge(rec, 0) || len(rec.Flags) != 0 {
		t.Errorf("gate off: flags %v", rec.Flags)
	}
}

// A window judged quiet stands for the gate's check before the next one
// within GateFreshness; a contended one, or an old quiet one, does not.
func TestGateSkipsAfterAQuietWindow(t *testing.T) {
	g, _ := host.NewGate(host.Baseline{}, 0.5, 1, 2, nil)
	r := &hostWatch{gate: g, r: &runner{opt: Options{Plan: &plan.Plan{Protocol: plan.Protocol{Gate: plan.Gate{Wait: time.Second}}}}}}
	quiet := &journal.Window{ForeignCores: 0.1, EndedAt: time.Now()}
	r.judge(quiet, 0)
	next := &journal.Window{}
	if err := r.gateWait(context.Background(), nil, next); err != nil {
		t.Fatal(err)
	}
	if !next.GateFromPrevious || next.Timings.GateWaitSeconds != 0 || next.GateCores != 0.5 {
		t.Errorf("after a quiet window: %+v", next)
	}
	for name, prev := range map[string]*journal.Window{
		"contended": {ForeignCores: 0.9, EndedAt: time.Now()},
		"suspended": {ForeignCores: 0.1, Suspended: true, EndedAt: time.Now()},
		"old":       {ForeignCores: 0.1, EndedAt: time.Now().Add(-2 * GateFreshness)},
	} {
		r.judge(prev, 0)
		if !r.quietAt.IsZero() && time.Since(r.quietAt) < GateFreshness {
			t.Errorf("%s window: the gate would be skipped", name)
		}
	}
}
