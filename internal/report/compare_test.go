package report

import (
	"bytes"
	"encoding/json"
	"github.com/stackbench/stackbench/internal/analysis"
	"math"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/stats"
)

// scaled is the fixture with every window of each stack scaled by
// factor(stack), its figures derived again.
func scaled(t *testing.T, a *Model, factor func(stack string) float64) *Model {
	t.Helper()
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b.Header.RunID = "20261130-090000"
	for i := range b.Cells {
		f := factor(b.Cells[i].Stack)
		for j := range b.Cells[i].PerWindow {
			b.Cells[i].PerWindow[j].ThroughputRPS *= f
			b.Cells[i].PerWindow[j].PerCPUSecond *= f
		}
	}
	b.recompute()
	return b
}

// fasterGin is the fixture with gin 20 % faster in every window: run B of
// a comparison.
func fasterGin(t *testing.T, a *Model) *Model {
	t.Helper()
	return scaled(t, a, func(stack string) float64 {
		if stack == "gin" {
			return 1.2
		}
		return 1
	})
}

func TestCompare(t *testing.T) {
	a := fixtureModel(t)
	b := fasterGin(t, a)
	c, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != CompareReference || c.Reference != "nethttp" || len(c.CannotJudge) != 0 {
		t.Fatalf("method %s, reference %q, cannot judge %v; want the first stack, unchanged in both runs, as the reference", c.Method, c.Reference, c.CannotJudge)
	}
	if want := 2 * 7 * 2; len(c.Steps) != want {
		t.Fatalf("%d steps, want one per stack but the reference, case and concurrency (%d)", len(c.Steps), want)
	}
	for _, s := range c.Steps {
		ch := s.Throughput
		ref, _ := a.Cell("nethttp", s.Case, s.Concurrency)
		switch {
		case ref.State != analysis.CellValid, s.From == "gin" && s.Case == "order" && s.Concurrency == 100, s.From == "gin" && s.Case == "cpu" && s.Concurrency == 10:
			if ch.Call != stats.CallInvalid || ch.Bounded() {
				t.Errorf("%s/%s/c=%d: %+v, want invalid (a cell of the stack or the reference is not valid)", s.From, s.Case, s.Concurrency, ch)
			}
		case s.From == "gin":
			if math.Abs(ch.EstimatePct-20) > 1e-6 || ch.Call != stats.CallGain || !ch.Bounded() || *ch.CILowPct <= 0 {
				t.Errorf("gin/%s/c=%d: %+v, want a +20 %% gain with an interval above 0", s.Case, s.Concurrency, ch)
			}
		default:
			if math.Abs(ch.EstimatePct) > 1e-9 || ch.Call == stats.CallGain || ch.Call == stats.CallLoss {
				t.Errorf("%s/%s/c=%d: %+v, want ±0 and neither gain nor loss", s.From, s.Case, s.Concurrency, ch)
			}
		}
	}
	var md bytes.Buffer
	if err := WriteComparisonMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "compare.md", md.Bytes())
}

// TestCompareIsSymmetric: report B A reverses every interval of report A B
// and turns gains into losses (it used run A's per-look α and a one-sided
// host check, so A B and B A could differ).
func TestCompareIsSymmetric(t *testing.T) {
	a := fixtureModel(t)
	b := fasterGin(t, a)
	ab, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ba, err := Compare(b, a, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flip := map[stats.Call]stats.Call{stats.CallGain: stats.CallLoss, stats.CallLoss: stats.CallGain, stats.CallSame: stats.CallSame, stats.CallUndecided: stats.CallUndecided, stats.CallInvalid: stats.CallInvalid}
	rev := func(p float64) float64 { return 100 * (1/(1+p/100) - 1) }
	for i := range ab.Steps {
		x, y := ab.Steps[i].Throughput, ba.Steps[i].Throughput
		if flip[x.Call] != y.Call || x.Bounded() != y.Bounded() {
			t.Errorf("%s %s: A→B %s, B→A %s", ab.Steps[i].From, ab.Steps[i].Case, x.Call, y.Call)
			continue
		}
		if x.Bounded() && (math.Abs(rev(*x.CILowPct)-*y.CIHighPct) > 1e-9 || math.Abs(rev(*x.CIHighPct)-*y.CILowPct) > 1e-9) {
			t.Errorf("%s %s: A→B (%v … %v), B→A (%v … %v): not reversed", ab.Steps[i].From, ab.Steps[i].Case, *x.CILowPct, *x.CIHighPct, *y.CILowPct, *y.CIHighPct)
		}
	}
}

// TestCompareThroughTheReferenceIgnoresTheHost: run B is the same code on
// a host 15 % faster in every window. Pooled, every stack looks 15 %
// faster; through the reference, nothing changed — no gain, no loss —
// and a gate can judge it.
func TestCompareThroughTheReferenceIgnoresTheHost(t *testing.T) {
	a := fixtureModel(t)
	b := scaled(t, a, func(string) float64 { return 1.15 })
	c, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Steps {
		if s.Throughput.Call == stats.CallGain || s.Throughput.Call == stats.CallLoss {
			t.Errorf("through the reference: %s %s c=%d %s", s.From, s.Case, s.Concurrency, CallText(s.Throughput))
		}
	}
	a.Header.StackFingerprints["nethttp"] = "changed"
	for _, s := range a.Header.Stacks {
		a.Header.StackFingerprints[s] = "changed-" + s
	}
	pooled, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pooled.Method != ComparePooled || len(pooled.CannotJudge) == 0 || !strings.Contains(pooled.CannotJudge[0], "no stack is in both runs unchanged") {
		t.Fatalf("without a shared reference: method %s, cannot judge %v", pooled.Method, pooled.CannotJudge)
	}
	gains := 0
	for _, s := range pooled.Steps {
		if s.Throughput.Call == stats.CallGain {
			gains++
		}
	}
	if gains == 0 {
		t.Errorf("pooled, the faster host should show as gains (that is why the gate cannot judge it)")
	}
	if _, err := Compare(a, b, CompareOptions{Reference: "chi"}); err == nil || !strings.Contains(err.Error(), "changed between the runs") {
		t.Errorf("a named reference that changed: %v", err)
	}
}

func TestCompareNeedsCommonStacks(t *testing.T) {
	a := fixtureModel(t)
	b := &Model{Header: analysis.Header{Stacks: []string{"express"}, Cases: a.Header.Cases, Concurrency: a.Header.Concurrency}}
	if _, err := Compare(a, b, CompareOptions{}); err == nil || !strings.Contains(err.Error(), "no stack in common") {
		t.Fatalf("got %v, want an error about stacks", err)
	}
}

// TestCompareNamesWhatItLeavesOut: cases and concurrencies found in one run
// only are not compared, and the warnings name them, as stacks are named.
func TestCompareNamesWhatItLeavesOut(t *testing.T) {
	a := fixtureModel(t)
	b := &Model{Header: analysis.Header{Stacks: a.Header.Stacks, Cases: append(a.Header.Cases[1:], analysis.CaseInfo{Name: "extra"}), Concurrency: a.Header.Concurrency[:1], Alpha: a.Header.Alpha}}
	c, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	warnings := strings.Join(c.Warnings, "\n")
	for _, want := range []string{
		"only in A, not compared: cases " + a.Header.Cases[0].Name,
		"only in B, not compared: cases extra",
		"only in A, not compared: concurrency " + joinInts(a.Header.Concurrency[1:]),
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings %q do not say %q", c.Warnings, want)
		}
	}
	for _, s := range c.Steps {
		if s.Case == a.Header.Cases[0].Name || s.Case == "extra" || s.Concurrency != a.Header.Concurrency[0] {
			t.Errorf("step %s %s c=%d compared, but one run lacks it", s.From, s.Case, s.Concurrency)
		}
	}
}

func TestHostsDifferBySpeed(t *testing.T) {
	a := fixtureModel(t)
	b := fasterGin(t, a)
	if got := hostsDiffer(a, b, 0.025); len(got) != 1 || !strings.Contains(got[0], "no host-speed probe") {
		t.Errorf("without probes: %v", got)
	}
	a.Header.HostSpeed = analysis.HostSpeed{Probes: 100, ProbeMedianMs: 4.0}
	b.Header.HostSpeed = analysis.HostSpeed{Probes: 100, ProbeMedianMs: 4.08}
	if got := hostsDiffer(a, b, 0.025); len(got) != 0 {
		t.Errorf("2 %% apart is the same speed (within δ/2 = 2.5 %%): %v", got)
	}
	b.Header.HostSpeed.ProbeMedianMs = 4.6
	if got := hostsDiffer(a, b, 0.025); len(got) != 1 || !strings.Contains(got[0], "+15.0 %") {
		t.Errorf("15 %% slower: %v", got)
	}
	b.Header.HostSpeed.ProbeMedianMs = 4.0
	b.Header.Host.Cores++
	if got := hostsDiffer(a, b, 0.025); len(got) != 1 || !strings.Contains(got[0], "different hosts") {
		t.Errorf("another core count: %v", got)
	}
}

// Issue 31, item 2: a reference stack does not cancel a change of machine
// (stacks scale differently with cores), so runs on hosts that differ in
// CPU model, count, memory or kernel cannot be judged, reference or not,
// unless --assume-same-host; and every cross-run call is in one family
// with the between-run term in its interval.
func TestCompareAcrossMachinesCannotJudge(t *testing.T) {
	a := fixtureModel(t)
	for _, change := range []func(h *analysis.Host){
		func(h *analysis.Host) { h.Cores = 4 },
		func(h *analysis.Host) { h.CPU = "Other CPU" },
		func(h *analysis.Host) { h.MemoryBytes *= 2 },
		func(h *analysis.Host) { h.Kernel = "6.8.0-other" },
	} {
		b := fasterGin(t, a)
		change(&b.Header.Host)
		c, err := Compare(a, b, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Method != CompareReference || len(c.CannotJudge) == 0 || !strings.Contains(strings.Join(c.CannotJudge, " "), "different hosts") {
			t.Errorf("host %+v: method %s, cannot judge %v; want the reference used and the gate refused", b.Header.Host, c.Method, c.CannotJudge)
		}
		ok, err := Compare(a, b, CompareOptions{AssumeSameHost: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(ok.CannotJudge) != 0 || ok.Method != CompareReference {
			t.Errorf("--assume-same-host: cannot judge %v, method %s", ok.CannotJudge, ok.Method)
		}
	}
	b := fasterGin(t, a)
	c, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Family != "run" || c.FamilyCalls != 48 || c.Steps[0].Throughput.FamilyCalls != 48 || c.BetweenRunPct != 3 || len(c.HostCompared) == 0 {
		t.Errorf("family %s over %d calls (step's %d), between-run %v %%; want run over 48, 3 %%", c.Family, c.FamilyCalls, c.Steps[0].Throughput.FamilyCalls, c.BetweenRunPct)
	}
}

// With two runs a side the runs are the unit: one value a run, the steps
// counted in runs, and gin's +20 % still called.
func TestCompareRunsAsTheUnit(t *testing.T) {
	a1 := fixtureModel(t)
	a2 := scaled(t, a1, func(string) float64 { return 1.01 })
	b1 := fasterGin(t, a1)
	b2 := scaled(t, a1, func(s string) float64 {
		if s == "gin" {
			return 1.22
		}
		return 0.99
	})
	c, err := CompareRuns([]*Model{a1, a2}, []*Model{b1, b2}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.RunsA) != 2 || len(c.RunsB) != 2 || c.BetweenRunPct != 0 {
		t.Fatalf("runs %v / %v, between-run %v; want two a side as the unit", c.RunsA, c.RunsB, c.BetweenRunPct)
	}
	for _, s := range c.Steps {
		if s.From != "gin" || s.Throughput.Call == stats.CallInvalid {
			continue
		}
		if s.Throughput.Unit != "runs" || s.Throughput.FromWindows != 2 || s.Throughput.EstimatePct < 19 || s.Throughput.EstimatePct > 22 {
			t.Errorf("gin %s c=%d: %+v; want about +20 %% over 2 runs a side", s.Case, s.Concurrency, s.Throughput)
		}
	}
}
