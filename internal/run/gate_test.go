package run

import (
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/boot"
	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/journal"
)

// The automatic gate is the idle baseline plus half a core: on a host whose
// other processes already use most of its CPUs the threshold passes the
// core count, foreign CPU can never cross it, and a saturated host would be
// reported as clean without a word.
func TestUnreachableGateIsAWarning(t *testing.T) {
	b := host.Baseline{MeanCores: 1.89, Duration: 3 * time.Second}
	w := unreachableGateWarning(b.MeanCores+host.DefaultGateMarginCores, b, 2)
	if !strings.Contains(w, "can never be crossed") || !strings.Contains(w, "2.39") || !strings.Contains(w, "1.89") {
		t.Errorf("gate 2.39 on 2 CPUs: warning %q, want one naming the gate and the baseline", w)
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
	r := &runner{gate: g}
	rec := &journal.Window{ForeignCores: 1.2, Suspended: true}
	if !r.judge(rec, 0) {
		t.Error("first disturbed try: not redone")
	}
	if !rec.HasFlag(journal.FlagContended) || !rec.HasFlag(journal.FlagSuspended) {
		t.Fatalf("flags %v, want contended and suspended", rec.Flags)
	}
	for _, reason := range rec.Reasons {
		if strings.HasPrefix(reason, journal.FlagContended+":") && !strings.Contains(reason, "foreign CPU 1.20") {
			t.Errorf("contended reason %q does not give the foreign CPU", reason)
		}
		if strings.HasPrefix(reason, journal.FlagSuspended+":") && !strings.Contains(reason, "suspended") {
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
	for _, r := range []*runner{{gate: g}, {}} {
		rec := &journal.Window{ForeignCores: 0.1, Probe: slow}
		if !r.judge(rec, 0) || !rec.HasFlag(journal.FlagHostSlow) || !strings.Contains(strings.Join(rec.Reasons, ";"), "25% slower") {
			t.Errorf("gate %v: a slow host: flags %v, reasons %v", r.gate != nil, rec.Flags, rec.Reasons)
		}
		budget := MaxSuspendRedos
		if r.gate != nil {
			budget = r.gate.Retries
		}
		rec = &journal.Window{ForeignCores: 0.1, Probe: slow}
		if r.judge(rec, budget) || !rec.HasFlag(journal.FlagHostSlow) {
			t.Errorf("gate %v: budget spent, yet redone (or not flagged: %v)", r.gate != nil, rec.Flags)
		}
		rec = &journal.Window{ForeignCores: 0.1, Probe: fine}
		if r.judge(rec, 0) || len(rec.Flags) != 0 {
			t.Errorf("gate %v: 15 %% slower is within the share: flags %v", r.gate != nil, rec.Flags)
		}
	}
}

// The run's boot line never prints the median of no first requests as a
// latency.
func TestFirstRequestText(t *testing.T) {
	s := boot.Summary{Starts: 3, FirstFailed: 3}
	if got := firstRequestText(s); strings.Contains(got, "ms") || !strings.Contains(got, "all 3") {
		t.Errorf("every first request failed: %q", got)
	}
	s = boot.Summary{Starts: 3, FirstFailed: 1, FirstRequest: boot.Spread{N: 2, Median: 4.2e6}}
	if got := firstRequestText(s); !strings.Contains(got, "4.2 ms") || !strings.Contains(got, "1 of 3") {
		t.Errorf("one of three failed: %q", got)
	}
}
