package report

import (
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/suite/dx"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// TestTextStepsShowEachCallWithItsInterval: the terminal never shows a
// call without its estimate and interval.
func TestTextStepsShowEachCallWithItsInterval(t *testing.T) {
	lo, hi := 3.1, 12.4
	m := &Model{
		Header: analysis.Header{Alpha: 0.05, MinEffect: 0.05},
		Groups: []analysis.GroupStep{
			{Kind: "adjacent", From: "a", To: "b", Concurrency: 32, Group: "database", Cases: 1, Defined: 1, MedianPct: 7.6, MinPct: 7.6, MaxPct: 7.6, Calls: map[stats.Call]int{stats.CallGain: 1}},
			{Kind: "adjacent", From: "a", To: "b", Concurrency: 32, Group: "framework-only", Cases: 1, Defined: 1, MedianPct: 2, MinPct: 2, MaxPct: 2, Calls: map[stats.Call]int{stats.CallUndecided: 1}},
		},
		Steps: []analysis.Step{
			{Kind: "adjacent", From: "a", To: "b", Case: "user", Concurrency: 32, Database: true,
				Throughput: analysis.Change{Call: stats.CallGain, EstimatePct: 7.6, CILowPct: &lo, CIHighPct: &hi, FromWindows: 5, ToWindows: 5}},
			{Kind: "adjacent", From: "a", To: "b", Case: "health", Concurrency: 32,
				Throughput: analysis.Change{Call: stats.CallUndecided, EstimatePct: 2, FromWindows: 3, ToWindows: 3, WindowsNeeded: 4}},
		},
	}
	var b strings.Builder
	WriteText(&b, m)
	for _, want := range []string{
		"intervals alone: 95% for a gain or a loss, 90% for same; minimum effect 5%",
		"a → b, database routes, c=32: 1 gain (median estimate +7.6%)\n",
		"user     gain +7.6 % (+3.1 … +12.4 %)\n",
		"a → b, framework-only routes, c=32: 1 undecided (median estimate +2.0%)\n",
		"health   undecided +2.0 % (no finite interval with 3 and 3 windows); ~4 windows a side would decide it in 80 % of runs\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("steps lack %q:\n%s", want, b.String())
		}
	}
}

// TestTextStepsKeepTheFamilyWhenNoCallIsValid: with every call invalid,
// a family: run plan is not reported as "each call on its own".
func TestTextStepsKeepTheFamilyWhenNoCallIsValid(t *testing.T) {
	m := &Model{
		Header: analysis.Header{Alpha: 0.05, MinEffect: 0.05, Family: "run", FamilyCalls: 0},
		Groups: []analysis.GroupStep{{Kind: "adjacent", From: "a", To: "b", Concurrency: 32, Group: "database", Cases: 1}},
		Steps: []analysis.Step{{Kind: "adjacent", From: "a", To: "b", Case: "user", Concurrency: 32, Database: true,
			Throughput: analysis.Change{Call: stats.CallInvalid, Reason: "a is insufficient"}}},
	}
	var b strings.Builder
	WriteText(&b, m)
	if strings.Contains(b.String(), "each call on its own") || !strings.Contains(b.String(), "false calls controlled over the run's calls, of which 0 valid") {
		t.Errorf("steps:\n%s", b.String())
	}
}

// After a run, each capacity says how many searches it rests on and their
// range, and each capacity step how many searches a side it used.
func TestTextCapacitySaysWhatEachFigureRestsOn(t *testing.T) {
	m := &Model{Capacity: &CapacitySection{
		Cases: []CapacityCase{{Case: "user", SLO: "p99=20ms", Rows: []CapacityRow{
			{Stack: "a", Status: capacity.StatusConfirmed, Searches: 4, Confirmed: 4, CapacityRPS: 8029.5, SearchCapacitiesRPS: []float64{8080, 7979, 8181, 8029.5},
				AtCapacity: &capacity.Figures{LatencyMicros: capacity.Percentiles{P99: 14000}}, ServerCores: 0.9, LastPassRPS: 7950, FirstFailRPS: 8109},
			{Stack: "b", Status: capacity.StatusConfirmed, Searches: 4, Confirmed: 3, CapacityRPS: 9000, SearchCapacitiesRPS: []float64{9000, 8900, 9100},
				AtCapacity: &capacity.Figures{LatencyMicros: capacity.Percentiles{P99: 15000}}, ServerCores: 1, LastPassRPS: 8950, FirstFailRPS: 9050},
		}}},
		Steps: []CapacityStep{{From: "a", To: "b", Case: "user", Capacity: analysis.Change{Call: stats.CallUndecided, EstimatePct: 12, FromWindows: 4, ToWindows: 3}}},
	}}
	var b strings.Builder
	WriteText(&b, m)
	for _, want := range []string{
		"a              8029.5 req/s (median of 4 searches, 7979.0–8181.0), p99 14.00 ms at it",
		"b              9000.0 req/s (median of 3 of 4 searches, 8900.0–9100.0)",
		"a → b user: ", "(4 / 3 searches)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestTextOfARunInOrder: a run's lines open with a blank line and the
// verdict, and its sections come in the order the terminal has always
// shown them; a run that measured the DX suite shows its table after.
func TestTextOfARunInOrder(t *testing.T) {
	m := &Model{
		Header:     analysis.Header{Alpha: 0.05, MinEffect: 0.05, Stacks: []string{"a", "b"}},
		Groups:     []analysis.GroupStep{{Kind: "adjacent", From: "a", To: "b", Concurrency: 8, Group: "database", Cases: 1}},
		Thresholds: []ThresholdCheck{{Stack: "a", Case: "user", Concurrency: 8, Metric: "p99", AtMost: true, Limit: 25, Unit: "ms", Verdict: ThresholdInvalid, Reason: "the cell is insufficient"}},
		DX:         &DXSection{Targets: []dx.TargetResult{{Name: "a", Install: &dx.Timing{Cold: &dx.Spread{Median: 2 * time.Second, Min: time.Second, Max: 3 * time.Second, N: 3}}}}},
	}
	var b strings.Builder
	if err := WriteText(&b, m); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "\nDecided: ") {
		t.Errorf("a run's lines open with a blank line and the verdict:\n%s", out)
	}
	last := -1
	for _, want := range []string{"Not decided:", "To decide:", "\nWhat each step bought", "\nThresholds (", "a user c=8 p99 ≤ 25.0 ms: invalid, the cell is insufficient", "\n\nDeveloper experience:", "target  install cold"} {
		i := strings.Index(out, want)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order:\n%s", want, out)
		}
		last = i
	}
}

// TestTextOfTheSuitesAlone: stackbench dx and process print the report's
// tables (the same columns as summary.md: "dependencies", never "deps")
// with no verdict of a run, each failure in full below.
func TestTextOfTheSuitesAlone(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	d := dx.Result{Targets: []dx.TargetResult{
		{Name: "express", Install: &dx.Timing{Cold: &dx.Spread{Median: ms(4300), Min: ms(4100), Max: ms(4500), N: 3}, Warm: &dx.Spread{Median: ms(2100), Min: ms(2000), Max: ms(2200), N: 3}},
			ArtifactBytes: 3 << 20, Deps: &dx.Deps{Ecosystem: "npm", Packages: 96, Bytes: 3880000, Counting: "node_modules' package.json files"}},
		{Name: "gin", Error: "go build: exit status 1\nmain.go:3: syntax error"},
	}}
	var b strings.Builder
	if err := WriteText(&b, DXModel(d)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Developer experience: medians (min–max) over the rounds",
		"target   install cold", "dependencies", "3.7 MiB in 96 packages (npm)",
		"Packages (npm): node_modules' package.json files.",
		"\ngin failed: go build: exit status 1\nmain.go:3: syntax error\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dx text lacks %q:\n%s", want, out)
		}
	}
	if strings.HasPrefix(out, "\n") || strings.Contains(out, "Decided:") || strings.Contains(out, "\tdeps") {
		t.Errorf("dx text opens with a run's lines or the old columns:\n%s", out)
	}
	p := spawn.Result{Sizes: []int{1}, Commands: []string{"yes", "also"}, Warmup: 1, Rounds: 2,
		Cells: []spawn.Cell{
			{Command: "yes", Size: 1, Wall: spawn.Spread{Median: 1.5e6, Min: 1e6, Max: 2e6, N: 2}, Metrics: map[string]spawn.Spread{"container_ms": {Median: 0.25}}},
			{Command: "also", Size: 1, Error: "/bin/false: exit status 1"},
		},
		Calls: []spawn.Call{{Size: 1, From: "yes", To: "also"}},
	}
	b.Reset()
	if err := WriteText(&b, ProcessModel(p)); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{
		"Process suite. Each command spawned and timed to its exit, 2 measured runs per command and size after 1 warm-up runs",
		"container_ms", "0.25", "failed: /bin/false: exit status 1",
		"Against the first command (wall time):\n  size 1, yes → also: no comparison (a cell failed)\n",
		"\nalso at size 1 failed: /bin/false: exit status 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("process text lacks %q:\n%s", want, out)
		}
	}
}
