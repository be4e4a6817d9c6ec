package run

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
	"github.com/stackbench/stackbench/internal/stats"
)

// latencyFile is two flaky stacks on /ok, the second sleeping 2 ms per
// request, in 4 interleaved rounds with latency windows at 50 %.
func latencyFile() string {
	return `
workload:
  name: flaky
  cases:
    - {name: ok, method: GET, path: /ok}
profile: quick
protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms
  window: 500ms
  rounds: 4
  boot_starts: 0
  gate: off
  latency: {rate: 50%}
stacks:
  - name: fast
    dir: .
    start: ` + flakyBin + `
  - name: slow
    dir: .
    start: ` + flakyBin + `
    env: {OK_DELAY: 2ms}
`
}

// A run with latency: {rate: 50%} measures an open-loop window after each
// cell's closed-loop window on the same process — right after it from
// round 2, at the end of round 1 for round 1 (interleaved, a fresh process
// per round: both processes are still up) — at one rate for both stacks:
// half the slower stack's round-1 median, journaled once before the first
// latency window; each step gets p50 and p99 calls from them. A resume measures only the latency windows
// missing, at the journaled rate, never at one worked out again. (On a
// shared 2-core host the windows may be starved and flagged, so this
// checks the plumbing; TestLatencyStepsAreCalledLowerIsBetter checks the
// calls.)
func TestRunLatencyWindows(t *testing.T) {
	t.Parallel()                        // see "Parallel tests" in main_test.go
	path := writeFile(t, latencyFile()) // flaky.yaml: the parity gate is skipped
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	// Four rounds: the rate is fixed from rounds 1 and 2, so the latency
	// windows are round 2's (at its end) and rounds 3 and 4's.
	if out.Latency != 6 {
		t.Errorf("the run measured %d latency windows; want 6 (2 stacks × rounds 2–4)", out.Latency)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.LatencyRates) != 1 {
		t.Fatalf("%d latency rate records, want 1: %+v", len(res.LatencyRates), res.LatencyRates)
	}
	rate := res.LatencyRates[0]
	// slow's median over its windows of rounds 1 and 2 (both counted on a
	// quiet host; a flagged one is left out, and then the other stands).
	slow1, slow2 := byKey["r1/slow/ok/c4"], byKey["r2/slow/ok/c4"]
	var counted []float64
	for _, w := range []journal.Window{slow1, slow2} {
		if w.Valid() {
			counted = append(counted, w.Load.ThroughputRPS)
		}
	}
	if len(counted) == 0 {
		counted = []float64{slow1.Load.ThroughputRPS, slow2.Load.ThroughputRPS}
	}
	slow := 0.0
	for _, v := range counted {
		slow += v / float64(len(counted))
	}
	if rate.Slowest != "slow" || math.Abs(rate.RateRPS-0.5*slow) > 1e-6*slow || rate.MedianRPS["fast"] <= slow {
		t.Errorf("rate %+v; want half of slow's median over rounds 1-2, %.1f req/s", rate, slow)
	}
	// The rate is journaled before the first latency window, which comes
	// after every closed-loop window of rounds 1 and 2.
	lines, _, _ := journal.ReadFile(filepath.Join(dir, journal.FileName))
	firstLatency, rateAt, lastRoundOne := -1, -1, -1
	for i, l := range lines {
		if l.Kind == journal.KindLatency && firstLatency < 0 {
			firstLatency = i
		}
		if l.Kind == journal.KindLatencyRate {
			rateAt = i
		}
		if l.Kind == journal.KindWindow && (strings.Contains(string(l.Raw), `"key":"r1/`) || strings.Contains(string(l.Raw), `"key":"r2/`)) {
			lastRoundOne = i
		}
	}
	if rateAt < 0 || rateAt > firstLatency || lastRoundOne < 0 || lastRoundOne > firstLatency {
		t.Errorf("rate record at line %d, first latency window at %d, round 2's last window at %d", rateAt, firstLatency, lastRoundOne)
	}
	latency := map[string]journal.Window{}
	for _, w := range res.FinalLatencyWindows() {
		latency[w.Key] = w
	}
	for r := 2; r <= 4; r++ {
		for _, s := range []string{"fast", "slow"} {
			cw := byKey[fmt.Sprintf("r%d/%s/ok/c4", r, s)]
			key := fmt.Sprintf("r%d/%s/ok/c4/latency", r, s)
			lw, ok := latency[key]
			if !ok || lw.Load == nil {
				t.Errorf("%s: missing (%+v)", key, lw)
				continue
			}
			if lw.Load.Mode != "open" || lw.Load.Rate != rate.RateRPS || lw.Load.LatencyUncorrectedMicros == nil {
				t.Errorf("%s: mode %s at %.1f req/s; want open at the journaled %.1f", key, lw.Load.Mode, lw.Load.Rate, rate.RateRPS)
			}
			if lw.Process.PID != cw.Process.PID || lw.Round != r || lw.Server.Processes == 0 || lw.Probe == nil {
				t.Errorf("%s: pid %d (closed-loop window's %d), round %d, server sampled %+v, probe %v", key, lw.Process.PID, cw.Process.PID, lw.Round, lw.Server, lw.Probe)
			}
			// Corrected latency counts from the intended send: never
			// below the slow stack's 2 ms sleep.
			if p50 := lw.Load.LatencyMicros.P50; s == "slow" && lw.Load.Successes > 0 && p50 < 2000 {
				t.Errorf("%s: corrected p50 %d µs, below the 2 ms the server sleeps", key, p50)
			}
		}
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	step := m.Steps[0]
	// One step, up to five metrics in the family: p50, p99 and the
	// fixed-rate CPU cost, and throughput and per CPU-second when their
	// cells are valid (a busy host can flag them); 0 when no call is.
	if fc := m.Header.FamilyCalls; step.P50 == nil || step.P99 == nil || !step.P50.LowerIsBetter || fc != 0 && (fc < 3 || fc > 5) {
		t.Errorf("step fast → slow: p50 %+v, p99 %+v, family %d", step.P50, step.P99, m.Header.FamilyCalls)
	}
	if lc, ok := m.LatencyCell("slow", "ok", 4); !ok || lc.Windows != 3 {
		t.Errorf("slow's latency cell: %+v; want 3 windows (rounds 2–4)", lc)
	}

	// Forge the journaled rate, drop round 4's latency windows as if the
	// run had stopped there, and resume: they are measured again at the
	// journaled rate.
	jpath := filepath.Join(dir, journal.FileName)
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case strings.Contains(line, `"kind":"latency"`) && strings.Contains(line, `"key":"r4/`):
			continue
		case strings.Contains(line, `"kind":"latency_rate"`):
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			rec["rate_rps"] = 123.0
			b, _ := json.Marshal(rec)
			line = string(b) + "\n"
		}
		kept = append(kept, line)
	}
	if err := os.WriteFile(jpath, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runFile(t, context.Background(), path, dir, plan.Overrides{}, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if out.Measured != 0 || out.Latency != 2 {
		t.Errorf("the resume measured %d windows and %d latency windows; want 0 and 2", out.Measured, out.Latency)
	}
	_, res = runtest.Finals(t, dir)
	if len(res.LatencyRates) != 1 {
		t.Errorf("%d rate records after the resume; want the one", len(res.LatencyRates))
	}
	for _, w := range res.FinalLatencyWindows() {
		want := rate.RateRPS
		if w.Round == 4 {
			want = 123
		}
		if w.Load == nil || w.Load.Rate != want {
			t.Errorf("%s: offered %v, want %.1f", w.Key, w.Load, want)
		}
	}
}

// judgeBehind flags a latency window whose server fell behind: unsent or
// unfinished requests, errors, or a served rate short of the offered one.
func TestJudgeBehind(t *testing.T) {
	base := func() *load.Result {
		return &load.Result{Rate: 1000, DurationSeconds: 2, ThroughputRPS: 1000, Attempts: 2000, Successes: 2000, Connections: 4,
			Errors: map[string]int64{"unfinished": 0}}
	}
	for _, c := range []struct {
		name  string
		edit  func(*load.Result)
		flag  bool
		words string
	}{
		{"kept up", func(*load.Result) {}, false, ""},
		{"a little short", func(r *load.Result) { r.ThroughputRPS = 980 }, false, ""},
		{"short", func(r *load.Result) { r.ThroughputRPS = 950 }, true, "served 950.0 of 1000.0 req/s"},
		{"one unsent per connection", func(r *load.Result) { r.Unsent = 4 }, false, ""},
		{"unsent", func(r *load.Result) { r.Unsent = 10 }, true, "never sent"},
		{"unfinished", func(r *load.Result) { r.Errors["unfinished"] = 5 }, true, "unanswered"},
		{"errors", func(r *load.Result) { r.Errors["status_503"] = 5 }, true, "failed (status_503"},
	} {
		res := base()
		c.edit(res)
		rec := &journal.Window{}
		judgeBehind(rec, res)
		if rec.HasFlag(journal.FlagBehind) != c.flag || c.flag && !strings.Contains(strings.Join(rec.Reasons, "; "), c.words) || rec.Valid() && c.flag {
			t.Errorf("%s: flags %v, reasons %v", c.name, rec.Flags, rec.Reasons)
		}
	}
}

// A run that calls only the fixed-rate cost (calls: [cost]) measures its
// closed-loop windows in round 1 only (closed_loop: first): they fix the
// rate; rounds 2-4 are each stack's latency window alone, on a process
// of its round, after a warm-up of twice the floor. The report counts the
// run finished at its look, and a resume measures only the latency
// windows missing.
func TestRunClosedLoopFirst(t *testing.T) {
	t.Parallel() // about what was measured and in which order, on stacks without a database (main_test.go)
	path := writeFile(t, strings.Replace(latencyFile(), "  latency: {rate: 50%}\n", "  latency: {rate: 50%}\n  calls: [cost]\n", 1))
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.Planned != 4 || out.Measured != 4 || out.Latency != 6 {
		t.Errorf("planned %d, measured %d closed-loop windows and %d latency windows; want 4, 4 and 6", out.Planned, out.Measured, out.Latency)
	}
	byKey, res := runtest.Finals(t, dir)
	if res.Plan.Plan.Protocol.ClosedLoop != plan.ClosedLoopFirst {
		t.Errorf("journaled closed_loop %q", res.Plan.Plan.Protocol.ClosedLoop)
	}
	for k := range byKey {
		if !strings.HasPrefix(k, "r1/") && !strings.HasPrefix(k, "r2/") {
			t.Errorf("closed-loop window %s measured after the rate rounds", k)
		}
	}
	latency := map[string]journal.Window{}
	for _, w := range res.FinalLatencyWindows() {
		latency[w.Key] = w
	}
	pids := map[int]string{}
	for r := 2; r <= 4; r++ {
		for _, s := range []string{"fast", "slow"} {
			key := fmt.Sprintf("r%d/%s/ok/c4/latency", r, s)
			lw, ok := latency[key]
			if !ok || lw.Load == nil {
				t.Errorf("%s: missing (%+v)", key, lw)
				continue
			}
			// 100 ms after round 2's closed-loop window; 200 ms where none ran.
			want := 0.1
			if r > 2 {
				want = 0.2
			}
			if lw.Load.Mode != "open" || lw.Load.WarmupSeconds != want || lw.Server.Processes == 0 {
				t.Errorf("%s: mode %s, warm-up %.2f s (want %.1f), server sampled %+v", key, lw.Load.Mode, lw.Load.WarmupSeconds, want, lw.Server)
			}
			if other, seen := pids[lw.Process.PID]; seen {
				t.Errorf("%s: process %d served %s too; want a fresh process per round", key, lw.Process.PID, other)
			}
			pids[lw.Process.PID] = key
		}
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := m.Header; h.State != "finished" || h.WindowsPlanned != 4 || h.BeforeFirstLook || h.CallsThroughRound != 0 {
		t.Errorf("header: state %s, %d windows planned, before the first look %v, calls through round %d", h.State, h.WindowsPlanned, h.BeforeFirstLook, h.CallsThroughRound)
	}
	if lc, ok := m.LatencyCell("slow", "ok", 4); !ok || lc.Windows != 3 {
		t.Errorf("slow's latency cell: %+v; want 3 windows", lc)
	}
	if th := m.Steps[0].Throughput; th.Call != stats.CallNotCalled || th.Reason != analysis.RoundOneOnly {
		t.Errorf("throughput of the step: %s, %q; want not called, measured in the rate rounds only", th.Call, th.Reason)
	}

	// Drop round 4's latency windows and resume: they alone are measured.
	jpath := filepath.Join(dir, journal.FileName)
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !(strings.Contains(line, `"kind":"latency"`) && strings.Contains(line, `"key":"r4/`)) {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(jpath, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runFile(t, context.Background(), path, dir, plan.Overrides{}, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if out.Measured != 0 || out.Skipped != 4 || out.Latency != 2 {
		t.Errorf("the resume measured %d windows (%d journaled) and %d latency windows; want 0 (4) and 2", out.Measured, out.Skipped, out.Latency)
	}
}
