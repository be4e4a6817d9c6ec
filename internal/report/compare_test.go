package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/stats"
)

// fasterGin is the fixture with gin 20 % faster in every window: run B of
// a comparison.
func fasterGin(t *testing.T, a *Model) *Model {
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
		if b.Cells[i].Stack != "gin" {
			continue
		}
		for j := range b.Cells[i].PerWindow {
			b.Cells[i].PerWindow[j].ThroughputRPS *= 1.2
			b.Cells[i].PerWindow[j].PerCPUSecond *= 1.2
		}
	}
	b.recompute()
	return b
}

func TestCompare(t *testing.T) {
	a := fixtureModel(t)
	b := fasterGin(t, a)
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * 7 * 2; len(c.Steps) != want {
		t.Fatalf("%d steps, want one per stack, case and concurrency (%d)", len(c.Steps), want)
	}
	for _, s := range c.Steps {
		ch := s.Throughput
		switch {
		case s.From == "gin" && s.Case == "order" && s.Concurrency == 100, s.From == "gin" && s.Case == "cpu" && s.Concurrency == 10:
			if ch.Call != stats.CallInvalid || ch.Bounded() {
				t.Errorf("%s/%s/c=%d: %+v, want invalid (the cell is invalid or failed in both runs)", s.From, s.Case, s.Concurrency, ch)
			}
		case s.From == "gin":
			if math.Abs(ch.EstimatePct-20) > 1e-6 || ch.Call != stats.CallGain || !ch.Bounded() || *ch.CILowPct <= 0 {
				t.Errorf("gin/%s/c=%d: %+v, want a +20 %% gain with an interval above 0", s.Case, s.Concurrency, ch)
			}
		default:
			if ch.EstimatePct != 0 || ch.Call == stats.CallGain || ch.Call == stats.CallLoss {
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

func TestCompareNeedsCommonStacks(t *testing.T) {
	a := fixtureModel(t)
	b := &Model{Header: Header{Stacks: []string{"express"}, Cases: a.Header.Cases, Concurrency: a.Header.Concurrency}}
	if _, err := Compare(a, b); err == nil || !strings.Contains(err.Error(), "no stack in common") {
		t.Fatalf("got %v, want an error about stacks", err)
	}
}

// TestCompareNamesWhatItLeavesOut: cases and concurrencies found in one run
// only are not compared, and the warnings name them, as stacks are named.
func TestCompareNamesWhatItLeavesOut(t *testing.T) {
	a := fixtureModel(t)
	b := &Model{Header: Header{Stacks: a.Header.Stacks, Cases: append(a.Header.Cases[1:], CaseInfo{Name: "extra"}), Concurrency: a.Header.Concurrency[:1], Alpha: a.Header.Alpha}}
	c, err := Compare(a, b)
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
	if got := hostsDiffer(a, b); len(got) != 1 || !strings.Contains(got[0], "no host-speed probe") {
		t.Errorf("without probes: %v", got)
	}
	a.Header.HostSpeed = HostSpeed{Probes: 100, ProbeMedianMs: 4.0}
	b.Header.HostSpeed = HostSpeed{Probes: 100, ProbeMedianMs: 4.1}
	if got := hostsDiffer(a, b); len(got) != 0 {
		t.Errorf("2.5 %% apart is the same speed: %v", got)
	}
	b.Header.HostSpeed.ProbeMedianMs = 4.6
	if got := hostsDiffer(a, b); len(got) != 1 || !strings.Contains(got[0], "+15.0 %") {
		t.Errorf("15 %% slower: %v", got)
	}
	b.Header.HostSpeed.ProbeMedianMs = 4.0
	b.Header.Host.Cores++
	if got := hostsDiffer(a, b); len(got) != 1 || !strings.Contains(got[0], "different hosts") {
		t.Errorf("another core count: %v", got)
	}
}
