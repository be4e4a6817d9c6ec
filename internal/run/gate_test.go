package run

import (
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
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
