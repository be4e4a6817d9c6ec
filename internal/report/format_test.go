package report

import (
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/stats"
)

// TestIntervalEndsKeepTheirSign: an interval end of +0.03 % lies above 0,
// and the text must say so (it printed "±0.0"); only an exact 0 is ±0.0.
func TestIntervalEndsKeepTheirSign(t *testing.T) {
	for pct, want := range map[float64]string{0.03: "+0.03", -0.03: "-0.03", 0.004: "+<0.01", -0.001: "−<0.01", 0: "±0.0", 1.26: "+1.3", -12.04: "-12.0"} {
		if got := signed(pct); got != want {
			t.Errorf("signed(%v) = %q, want %q", pct, got, want)
		}
	}
	lo, hi := 0.03, 4.2
	c := analysis.Change{Call: stats.CallGain, Size: stats.SizeSmall, MinEffectPct: 5, EstimatePct: 2, CILowPct: &lo, CIHighPct: &hi, Confidence: 0.95}
	if got := CallText(c); got != "gain +2.0 % (+0.03 … +4.2 %, 95 % interval), wholly within the minimum effect (small)" {
		t.Errorf("CallText = %q", got)
	}
	lo, hi = -40, -8
	// One interval, at the level the call was made (a selected call's
	// adjusted level), said with it; the minimum effect is not shown as a
	// second interval; the step's paired noise follows.
	sd := 3.14
	c = analysis.Change{Call: stats.CallLoss, Size: stats.SizeLarge, MinEffectPct: 5, EstimatePct: -20, CILowPct: &lo, CIHighPct: &hi, Confidence: 0.99817, PairedSDPct: &sd}
	if got := CallText(c); got != "loss -20.0 % (-40.0 … -8.0 %, 99.8 % interval), wholly past the minimum effect of -4.8 %; paired noise 3.1 %" {
		t.Errorf("CallText = %q", got)
	}
	// A same whose 90 % interval excludes 0 says why it is no gain.
	lo, hi = 0.6, 3.1
	c = analysis.Change{Call: stats.CallSame, MinEffectPct: 5, EstimatePct: 2, CILowPct: &lo, CIHighPct: &hi, Confidence: 0.9}
	if got := CallText(c); got != "same +2.0 % (+0.6 … +3.1 %, 90 % interval); the interval excludes 0 but lies within the minimum effect, and the step is not called a gain or a loss at the run's level" {
		t.Errorf("CallText = %q", got)
	}
}

// TestUnboundedIntervalCountsWhatTheTestCompared: with repeats the test
// compares one value per process, and the text counts those, not windows.
func TestUnboundedIntervalCountsWhatTheTestCompared(t *testing.T) {
	c := analysis.Change{Call: stats.CallUndecided, FromWindows: 6, ToWindows: 6, FromValues: 3, ToValues: 3}
	if got := intervalText(c); !strings.Contains(got, "3 and 3 processes") {
		t.Errorf("intervalText = %q, want the 3 and 3 processes the test compared", got)
	}
	c.FromValues, c.ToValues = 6, 6
	if got := intervalText(c); !strings.Contains(got, "6 and 6 windows") {
		t.Errorf("intervalText = %q, want windows when each process served one", got)
	}
}

// TestVerdictCountsTheNeedInTheCallsUnit: a paired run's undecided calls
// say how many pairs would decide them, and so does the verdict's "To
// decide" line, also past stats.MaxWindowsNeeded: one unit on the page.
func TestVerdictCountsTheNeedInTheCallsUnit(t *testing.T) {
	for _, need := range []int{7, stats.MaxWindowsNeeded} {
		m := fixtureModel(t)
		for i := range m.Steps {
			if c := &m.Steps[i].Throughput; c.Call == stats.CallUndecided {
				c.Pairs, c.WindowsNeeded = 6, need
			}
		}
		lines := VerdictLines(m)
		if !strings.Contains(lines[2], " pairs") || strings.Contains(lines[2], "windows a side") {
			t.Errorf("need %d: verdict %q, want the need in pairs", need, lines[2])
		}
		for _, s := range m.Steps {
			if s.Throughput.Call == stats.CallUndecided {
				if got := windowsNeededText(s.Throughput); !strings.Contains(got, " pairs") {
					t.Errorf("need %d: case line %q, want pairs", need, got)
				}
				break
			}
		}
	}
}

// TestFamilyLabelWhenNoCallIsValid: a run planned with family: run whose
// calls are all invalid still says family: run (analysis counts 0 calls
// in the family; that is not family: step).
func TestFamilyLabelWhenNoCallIsValid(t *testing.T) {
	for _, n := range []int{0, 1} {
		got := familyText(analysis.Header{Family: "run", FamilyCalls: n, Alpha: 0.05})
		if !strings.Contains(got, "family: run") || strings.Contains(got, "family: step") {
			t.Errorf("%d valid calls: %q, want family: run", n, got)
		}
	}
	if got := familyText(analysis.Header{Family: "step", Alpha: 0.05}); !strings.Contains(got, "family: step") {
		t.Errorf("family step: %q", got)
	}
}

// The header names each stack's wire when one is not plain HTTP/1.1.
func TestStacksWithWires(t *testing.T) {
	h := analysis.Header{Stacks: []string{"json", "grpc"}}
	if got := strings.Join(stacksWithWires(h), " → "); got != "json → grpc" {
		t.Errorf("all HTTP/1.1: %q", got)
	}
	h.Wires = map[string]string{"grpc": "gRPC over TLS, 100 streams a connection"}
	if got := strings.Join(stacksWithWires(h), " → "); got != "json (HTTP/1.1) → grpc (gRPC over TLS, 100 streams a connection)" {
		t.Errorf("with a gRPC stack: %q", got)
	}
}

// A metric not called whose cells were invalid shows why, not an
// estimate of 0.
func TestNotCalledInvalidText(t *testing.T) {
	c := analysis.Change{Call: stats.CallNotCalled, Reason: stats.NotCalledInvalid + "b is insufficient (3 of 10 windows flagged)"}
	if got := CallText(c); got != "not called, and invalid: b is insufficient (3 of 10 windows flagged)" {
		t.Errorf("%q", got)
	}
}

// The verdict says what its undecided calls rest on: their paired noise
// when they have one, the windows' spread only for throughput calls
// without it.
func TestVerdictNamesTheUndecidedCallsNoise(t *testing.T) {
	m := fixtureModel(t)
	noise := []float64{4, 9, 6}
	k := 0
	for i := range m.Steps {
		if c := &m.Steps[i].Throughput; c.Call == stats.CallUndecided {
			c.PairedSDPct = &noise[k%len(noise)]
			k++
		}
	}
	if k == 0 {
		t.Fatal("the fixture has no undecided step")
	}
	line := VerdictLines(m)[1]
	if want := ": their paired noise is "; !strings.Contains(line, want) || strings.Contains(line, "robust CV") {
		t.Errorf("verdict %q, want %q and no windows' CV", line, want)
	}
}
