package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// writeFile writes a comparison file into a new directory and returns its path.
func writeFile(t *testing.T, yaml string) string {
	t.Helper()
	name := "stackbench.yaml"
	if strings.Contains(yaml, flakyBin) {
		name = "flaky.yaml"
	}
	return runtest.WriteFile(t, name, yaml)
}

// runFile resolves a comparison file and runs it into dir. The flaky test
// server fails the contract on purpose, so its runs skip the parity gate.
func runFile(t *testing.T, ctx context.Context, path, dir string, o plan.Overrides, resume bool) (*Outcome, error) {
	return runFileOpts(t, ctx, path, dir, o, resume, strings.Contains(path, "flaky"))
}

// runFileNoParity is runFile with the parity gate skipped, for the tests
// that assert nothing the gate does: before any window it starts each
// stack on a copy of its own, runs the contract's ~100 checks and stops
// it (2–6 s of such a test on a busy 2-core host, resumes included). The
// gate is what the tests that assert it check: TestParityFailureSendsNoLoad,
// TestStacksWithTheirOwnBasePaths, TestStacksWithDatabasesOfTheirOwn, the
// wire and scenario tests, and the runs that keep it on for what it does
// to their databases (TestEveryStackMeetsTheSameDatabase).
func runFileNoParity(t *testing.T, ctx context.Context, path, dir string, o plan.Overrides, resume bool) (*Outcome, error) {
	t.Helper()
	return runFileOpts(t, ctx, path, dir, o, resume, true)
}

func runFileOpts(t *testing.T, ctx context.Context, path, dir string, o plan.Overrides, resume, skipParity bool) (*Outcome, error) {
	t.Helper()
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(o)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("STACKBENCH_TEST_RUNLOG") != "" {
			t.Logf("run log (seconds since the run began):\n%s", log.String())
		}
	})
	// The request pools go beside the results directory, for the tests
	// that read them (a run's own are removed when it ends).
	return Run(ctx, Options{File: f, Plan: p, Dir: dir, Resume: resume, SkipParity: skipParity, Stackbench: stackbenchBin, Log: &stampedLog{b: &log, t0: time.Now()}, ToolVersion: "test", PoolDir: dir + ".pools"})
}

// stampedLog writes a run's log with each line's time since the run
// began, so that a failed test (or one run with STACKBENCH_TEST_RUNLOG=1)
// shows where its time went.
type stampedLog struct {
	mu   sync.Mutex
	b    *strings.Builder
	t0   time.Time
	midl bool
}

func (w *stampedLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for rest := p; len(rest) > 0; {
		if !w.midl {
			fmt.Fprintf(w.b, "[%6.2f] ", time.Since(w.t0).Seconds())
		}
		line, after, nl := bytes.Cut(rest, []byte("\n"))
		w.b.Write(line)
		if nl {
			w.b.WriteByte('\n')
		}
		w.midl, rest = !nl, after
	}
	return len(p), nil
}

// refStack lists one reference server.
func refStack(name string) string {
	return "stacks:\n  - name: " + name + "\n    dir: " + refServerDir + "\n    start: " + refServerBin + "\n"
}

func refStacks() string {
	return `
stacks:
  - name: first
    dir: ` + refServerDir + `
    start: ` + refServerBin + `
    version: go version
  - name: second
    dir: ` + refServerDir + `
    start: ` + refServerBin + `
`
}

func TestRunJournalsEveryWindowOfThePlan(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, runtest.SaasFile("database: "+admin+"\nprofile: quick\n", `  concurrency: [8]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 2
  cases: [health, user, order]
`, refStacks()))
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFileNoParity(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if res.Plan == nil || len(res.Plan.Plan.Windows) != 12 {
		t.Fatalf("plan record missing or wrong: %+v", res.Plan)
	}
	if out.Measured != 12 || len(byKey) != 12 {
		t.Fatalf("measured %d, final records %d, want 12", out.Measured, len(byKey))
	}
	for _, pw := range res.Plan.Plan.Windows {
		w, ok := byKey[pw.Key]
		if !ok {
			t.Errorf("window %s missing from the journal", pw.Key)
			continue
		}
		if w.Load == nil || w.Load.Successes == 0 {
			t.Errorf("%s: no successes: %+v", w.Key, w.Load)
			continue
		}
		if w.Server.CPUSeconds <= 0 || w.Server.RSSPeakBytes <= 0 || w.Generator.CPUSeconds <= 0 {
			t.Errorf("%s: usage not measured: server %+v generator %+v", w.Key, w.Server, w.Generator)
		}
		// The sampler may open up to 0.3 s late (below) on a host as busy
		// as CI's, where every package's tests and clusters run at once
		// (0.19 s seen there, 2026-12-07): the wall is the window's less
		// that lag, never under 0.2 s of a 0.5 s window.
		if w.WallSeconds < 0.2 || w.WallSeconds > 2 {
			t.Errorf("%s: sampled wall %.3fs for a 500ms window", w.Key, w.WallSeconds)
		}
		// The sampler follows the generator's events, so it opens and closes
		// after the load's boundaries, never before, and its wall is the
		// window's less the start lag plus the end lag.
		const slack = 0.002
		start, end := w.SamplerStartLagSeconds, w.SamplerEndLagSeconds
		if start < -slack || end < -slack || start > 0.3 || end > 0.3 || (start == 0 && end == 0) {
			t.Errorf("%s: sampler lags %.4fs at the start and %.4fs at the end, want each in [0, 0.3) s", w.Key, start, end)
		}
		if want := w.Load.DurationSeconds - start + end; abs(w.WallSeconds-want) > slack {
			t.Errorf("%s: sampled wall %.4fs, want the window's %.3fs − %.4fs + %.4fs = %.4fs", w.Key, w.WallSeconds, w.Load.DurationSeconds, start, end, want)
		}
		if w.DBBefore == nil || w.DBAfter == nil {
			t.Errorf("%s: database stats missing", w.Key)
		}
		// The database is this test's own server given by URL. A fresh
		// stack's pool forks its backends during the warm-up of its first
		// database window, after the window was set up: they must be
		// measured too (a snapshot of the server's processes missed them,
		// and with them ~90 % of the database CPU).
		if health := byKey[strings.Replace(w.Key, "/"+pw.Case+"/", "/health/", 1)]; pw.Case != "health" &&
			(w.Database.CPUSeconds <= 0 || w.Database.Processes <= health.Database.Processes) {
			t.Errorf("%s: database %+v, want CPU and more processes than the health window's %d (the stack's backends)", w.Key, w.Database, health.Database.Processes)
		}
		if pw.Inserts {
			if w.DBBefore.OrdersRows != 200000 {
				t.Errorf("%s: orders not reset before the window: %d rows", w.Key, w.DBBefore.OrdersRows)
			}
			if w.DBAfter.OrdersRows <= 200000 {
				t.Errorf("%s: no order inserted", w.Key)
			}
		}
	}
	// Rotation: round 2 starts with the second stack, in a fresh process.
	r1, r2 := byKey["r1/first/health/c8"], byKey["r2/second/health/c8"]
	if r1.Slot != 0 || r2.Slot != 0 || r1.Process.PID == byKey["r2/first/health/c8"].Process.PID {
		t.Errorf("rotation or fresh processes wrong: r1 first slot %d, r2 second slot %d", r1.Slot, r2.Slot)
	}
	if got := byKey["r1/first/order/c8"].Process.CasesBefore; strings.Join(got, ",") != "health,user" {
		t.Errorf("process history of r1/first/order = %v, want health,user", got)
	}
	if _, err := os.Stat(filepath.Join(dir, journal.ResultsFile)); err != nil {
		t.Errorf("results.json not written: %v", err)
	}
	// The stacks' copies, named after the run, are dropped at its end.
	for i := range 2 {
		name := fmt.Sprintf("%s_%d", res.Plan.RunDatabase, i+1)
		if ok, err := pgfix.DatabaseExists(context.Background(), admin, name); err != nil || ok || !strings.HasPrefix(name, runDatabase+"_") {
			t.Errorf("database %s: left after the run %v (%v); want the run's own copy, dropped", name, ok, err)
		}
	}
}

// Fixed warm-ups: the runs of this package's tests set warmup_max to
// their warmup, so that each window warms up for that fixed time instead
// of "until steady" up to the profile's cap (quick: 3 s, the default
// profile: 10 s), which took 0.6–2.1 s of every window on a 2-core CI host;
// an override of warmup alone (plan.Overrides.Warmup) under the file's
// warmup_max makes it adaptive again, at least 4 slices of 100 ms. The
// warm-up is 100 ms, the least a file may set, and the window 500 ms, the
// shortest, unless a test needs longer: a window's closed-loop load keeps
// both cores busy, and the suite is bound by its CPU. None of them judges
// the warm-up's length or steadiness: warmup_test.go does, with caps of
// its own.
func flakyFile(cases string, extra string) string {
	return `
workload:
  name: flaky
  cases:
    - {name: ok, method: GET, path: /ok}
    - {name: fail, method: GET, path: /fail}
    - {name: crash, method: GET, path: /crash}
profile: quick
protocol:
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  cases: ` + cases + `
  boot_starts: 0
` + extra + `
stacks:
  - name: flaky
    dir: .
    start: ` + flakyBin + `
`
}

func TestCrashingCaseFailsItsCellAndTheRunGoesOn(t *testing.T) {
	path := writeFile(t, flakyFile("[ok, crash, fail]", "  gate: off"))
	dir := filepath.Join(t.TempDir(), "results")
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(byKey) != 3 || out.Measured != 3 {
		t.Fatalf("%d final windows, measured %d; want 3", len(byKey), out.Measured)
	}
	if w := byKey["r1/flaky/ok/c4"]; !w.Valid() || len(measureFlags(w)) != 0 {
		t.Errorf("ok window: flags %v reasons %v", w.Flags, w.Reasons)
	}
	crash := byKey["r1/flaky/crash/c4"]
	if !crash.HasFlag(journal.FlagFailed) || !crash.HasFlag(journal.FlagServerDied) || crash.Attempt != 2 {
		t.Errorf("crash window: attempt %d flags %v reasons %v", crash.Attempt, crash.Flags, crash.Reasons)
	}
	tries := 0
	for _, w := range res.Windows {
		if w.Key == crash.Key {
			tries++
		}
	}
	if tries != 2 {
		t.Errorf("crash window tried %d times, want 2 (redone once after a restart)", tries)
	}
	fail := byKey["r1/flaky/fail/c4"]
	if !fail.HasFlag(journal.FlagInvalid) || fail.HasFlag(journal.FlagFailed) || fail.Load == nil || fail.Load.Errors["status_503"] == 0 {
		t.Errorf("fail window after the crash: flags %v reasons %v", fail.Flags, fail.Reasons)
	}
	if len(fail.Process.CasesBefore) != 0 || fail.Process.PID == crash.Process.PID {
		t.Errorf("fail window after the crash: process %d served %v before it, want a fresh process", fail.Process.PID, fail.Process.CasesBefore)
	}
	if !strings.Contains(strings.Join(fail.Reasons, " "), "status_503") {
		t.Errorf("invalid reason does not name the error class: %v", fail.Reasons)
	}
	if len(out.FailedCells) != 1 || out.FailedCells[0] != crash.Key {
		t.Errorf("failed cells %v", out.FailedCells)
	}
}

func TestInterruptedRunKeepsWhatWasJournaled(t *testing.T) {
	path := writeFile(t, flakyFile("[ok, fail]", "  gate: off"))
	dir := filepath.Join(t.TempDir(), "results")
	// Cancel (as Ctrl-C does) once the second window is journaled final, in
	// the middle of the third: while its load generator runs.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		deadline := time.Now().Add(2 * time.Minute)
		for countFinalWindows(filepath.Join(dir, journal.FileName)) < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		for !loadRunning(os.Getpid()) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	_, err := runFile(t, ctx, path, dir, plan.Overrides{Rounds: 3}, false)
	if err == nil {
		t.Fatal("a cancelled run returned no error")
	}
	byKey, _ := runtest.Finals(t, dir)
	if len(byKey) != 2 {
		t.Fatalf("%d windows journaled before the cancel in the third window's load; want 2", len(byKey))
	}
	out, err := runFile(t, context.Background(), path, dir, plan.Overrides{Rounds: 3}, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if out.Skipped != len(byKey) || out.Skipped+out.Measured != 6 {
		t.Fatalf("resume measured %d and skipped %d; want %d skipped, 6 in all", out.Measured, out.Skipped, len(byKey))
	}
	after, _ := runtest.Finals(t, dir)
	if len(after) != 6 {
		t.Fatalf("%d final windows after the resume, want 6", len(after))
	}
}

func TestParityFailureSendsNoLoad(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	path := writeFile(t, flakyFile("[ok, fail]", "  gate: off"))
	dir := filepath.Join(t.TempDir(), "results")
	_, err := runFileOpts(t, context.Background(), path, dir, plan.Overrides{}, false, false)
	if !errors.Is(err, ErrParity) {
		t.Fatalf("run error = %v, want ErrParity", err)
	}
	res, rerr := journal.ReadDir(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(res.Windows) != 0 {
		t.Errorf("%d windows measured after a failed parity gate", len(res.Windows))
	}
	if len(res.Parity) != 1 || res.Parity[0].Passed || len(res.Parity[0].Failures) == 0 {
		t.Fatalf("parity record = %+v", res.Parity)
	}
	if !strings.Contains(strings.Join(res.Parity[0].Failures, "\n"), "fail/") {
		t.Errorf("the failures do not name the failing case: %v", res.Parity[0].Failures)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ParityFile)); err != nil || !strings.Contains(string(b), "FAIL") {
		t.Errorf("parity.txt: %v %q", err, b)
	}
}

// TestContendedWindowIsRedoneThenFlagged runs a CPU hog beside the run with
// a gate far below it: every window is redone up to the retry budget, then
// kept and flagged contended with its reason.
func TestContendedWindowIsRedoneThenFlagged(t *testing.T) {
	hog := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { hog.Process.Kill(); hog.Wait() }()
	path := writeFile(t, flakyFile("[ok]", "  gate: {threshold: 0.05, retries: 1, wait: 1s}"))
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	w := byKey["r1/flaky/ok/c4"]
	if !w.HasFlag(journal.FlagContended) || w.Attempt != 2 {
		t.Fatalf("window: attempt %d flags %v reasons %v", w.Attempt, w.Flags, w.Reasons)
	}
	if w.ForeignCores < 0.5 || w.GateCores != 0.05 {
		t.Errorf("foreign CPU %.2f cores with a hog running, gate %.2f", w.ForeignCores, w.GateCores)
	}
	if len(res.Windows) != 2 || res.Windows[0].Final {
		t.Errorf("want one redone try and one final: %d records, first final=%v", len(res.Windows), res.Windows[0].Final)
	}
	belowIdle := func(w string) bool {
		return strings.Contains(w, "the contention gate of 0.05 cores is below the machine's idle foreign CPU")
	}
	if env := res.Environments[0]; env.GateThresholdCores != 0.05 || !slices.ContainsFunc(env.Warnings, belowIdle) {
		t.Errorf("environment: gate %.2f, warnings %q (want the gate-below-idle warning, trap T6)", env.GateThresholdCores, env.Warnings)
	}
}

// The run warns when its highest concurrency exceeds the host's somaxconn
// (trap T12), and not when it equals it: the backlog holds that many.
func TestRunWarnsAboveSomaxconn(t *testing.T) {
	captured := captureHost
	t.Cleanup(func() { captureHost = captured })
	for _, c := range []struct {
		somaxconn int
		warned    bool
	}{{4, false}, {3, true}} {
		captureHost = func() host.Environment {
			e := captured()
			e.Somaxconn, e.OpenFileLimit, e.Governor = c.somaxconn, 1<<20, ""
			return e
		}
		// The flaky stack fails parity: the run stops after journaling its
		// environment, before any load.
		path := writeFile(t, flakyFile("[ok, fail]", "  gate: off"))
		dir := filepath.Join(t.TempDir(), "results")
		if _, err := runFileOpts(t, context.Background(), path, dir, plan.Overrides{}, false, false); !errors.Is(err, ErrParity) {
			t.Fatalf("run error = %v, want ErrParity", err)
		}
		_, res := runtest.Finals(t, dir)
		if len(res.Environments) != 1 {
			t.Fatalf("%d environment records, want 1", len(res.Environments))
		}
		want := fmt.Sprintf("concurrency 4 exceeds net.core.somaxconn (%d)", c.somaxconn)
		warnings := res.Environments[0].Warnings
		if warned := slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, want) }); warned != c.warned {
			t.Errorf("concurrency 4, somaxconn %d: warnings %q; want the somaxconn warning: %v", c.somaxconn, warnings, c.warned)
		}
	}
}

// TestCheckpointInWindowIsFlagged takes a real checkpoint while the first
// window's load runs (trap T4): that window is flagged with the count, and
// the next one, after the run's own checkpoint, is not.
func TestCheckpointInWindowIsFlagged(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, runtest.SaasFile("database: "+admin+"\nprofile: quick\n", `  concurrency: [4]
  warmup: 300ms
  warmup_max: 300ms # see "Fixed warm-ups" at flakyFile
  window: 1s
  rounds: 1
  cases: [user, health]
`, refStack("first")))
	dir := filepath.Join(t.TempDir(), "results")
	checkpointed := make(chan error, 1)
	go func() {
		for deadline := time.Now().Add(2 * time.Minute); !loadRunning(os.Getpid()); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				checkpointed <- errors.New("no window's load within 2 minutes")
				return
			}
		}
		db, err := pgfix.Open(context.Background(), admin)
		if err == nil {
			err = db.Checkpoint(context.Background())
			db.Close()
		}
		checkpointed <- err
	}()
	if _, err := runFileNoParity(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := <-checkpointed; err != nil {
		t.Fatalf("checkpoint during the first window: %v", err)
	}
	// The checkpoint landed in the first try of the first window (a busy
	// host may have it redone; the redone try is journaled too); the last
	// try of the run, after the run's own checkpoints, has none.
	_, res := runtest.Finals(t, dir)
	first, last := res.Windows[0], res.Windows[len(res.Windows)-1]
	if first.Key != "r1/first/user/c4" || !first.HasFlag(journal.FlagCheckpoint) ||
		!slices.Contains(first.Reasons, journal.FlagCheckpoint.Reason("1 checkpoint(s) happened during the warm-up or the window")) {
		t.Errorf("the try with a checkpoint, %s: flags %v, reasons %q", first.Key, first.Flags, first.Reasons)
	}
	if last.Key != "r1/first/health/c4" || last.Load == nil || last.HasFlag(journal.FlagCheckpoint) {
		t.Errorf("the last try, %s: flags %v, reasons %q; want no checkpoint", last.Key, last.Flags, last.Reasons)
	}
}

func TestSpreadModeSendsTheRequestPool(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, runtest.SaasFile("database: "+admin+"\n", `  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  cases: [me, order]
  spread: true
`, refStack("ref")))
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFileNoParity(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := runtest.Finals(t, dir)
	for _, k := range []string{"r1/ref/me/c4", "r1/ref/order/c4"} {
		w := byKey[k]
		if !w.Valid() || len(measureFlags(w)) != 0 || w.Load.PoolSize != 1000 {
			t.Errorf("%s: flags %v reasons %v pool %d", k, w.Flags, w.Reasons, w.Load.PoolSize)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir+".pools", "order.jsonl"))
	if err != nil || strings.Count(string(b), "\n") != 1000 || !strings.Contains(string(b), `\"userId\":4242`) {
		t.Errorf("order pool: %v, %d lines", err, strings.Count(string(b), "\n"))
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestFreshProcessPerCase gives every case its own server process, so no
// window's memory carries another case's history (trap T9).
func TestFreshProcessPerCase(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	path := writeFile(t, flakyFile("[ok, fail]", "  gate: off\n  fresh: case"))
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{Rounds: 2}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, _ := runtest.Finals(t, dir)
	pids := map[int]bool{}
	for k, w := range byKey {
		if len(w.Process.CasesBefore) != 0 {
			t.Errorf("%s: the process served %v before it", k, w.Process.CasesBefore)
		}
		pids[w.Process.PID] = true
	}
	if len(byKey) != 4 || len(pids) != 4 {
		t.Errorf("%d windows in %d processes, want 4 in 4", len(byKey), len(pids))
	}
}

// measureFlags are a window's flags less client_starved, trend and
// not_steady, which say how busy the host was (a test suite's parallel
// packages starve the generator on two cores, and shake a warm server's
// throughput by more than 10 % within a second), not what the server did.
func measureFlags(w journal.Window) []journal.Flag {
	var out []journal.Flag
	for _, f := range w.Flags {
		if f != journal.FlagClientStarved && f != journal.FlagTrend && f != journal.FlagNotSteady {
			out = append(out, f)
		}
	}
	return out
}

// TestInterleavedRoundKeepsEachStacksProcessUp: in an interleaved round
// two stacks take turns case by case (a b, then b a), each stack's process
// of the round serving all its windows while the other's sits idle; the
// idle one is journaled as ours, not as foreign CPU, and each round starts
// fresh processes.
func TestInterleavedRoundKeepsEachStacksProcessUp(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	f := flakyFile("[ok, fail]", "  gate: off\n  layout: interleaved")
	i := strings.Index(f, "stacks:")
	f += strings.Replace(f[i+len("stacks:\n"):], "name: flaky", "name: flaky-b", 1)
	path := writeFile(t, f)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{Rounds: 2}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	_, res := runtest.Finals(t, dir)
	var order []string
	pid := map[string]int{} // stack and round → PID
	for _, w := range res.Windows {
		if !w.Final {
			continue
		}
		order = append(order, w.Key)
		key := fmt.Sprintf("%s r%d", w.Stack, w.Round)
		if p, ok := pid[key]; ok && p != w.Process.PID {
			t.Errorf("%s: PID %d, but %d served %s before", w.Key, w.Process.PID, p, key)
		}
		pid[key] = w.Process.PID
	}
	want := "r1/flaky/ok/c4 r1/flaky-b/ok/c4 r1/flaky-b/fail/c4 r1/flaky/fail/c4 r2/flaky-b/ok/c4 r2/flaky/ok/c4 r2/flaky/fail/c4 r2/flaky-b/fail/c4"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("window order\n got %s\nwant %s", got, want)
	}
	distinct := map[int]bool{}
	for _, p := range pid {
		distinct[p] = true
	}
	if len(pid) != 4 || len(distinct) != 4 {
		t.Errorf("processes %v: want one per stack and round, each its own", pid)
	}
	// The other stack's process is idle beside the first three windows of
	// each round's four but the first of the round (it is not up yet) and
	// the last (its last window came before).
	for _, w := range res.Windows {
		if !w.Final {
			continue
		}
		first := w.Key == "r1/flaky/ok/c4" || w.Key == "r2/flaky-b/ok/c4"
		last := w.Key == "r1/flaky/fail/c4" || w.Key == "r2/flaky-b/fail/c4"
		idle := w.IdleServers != nil && w.IdleServers.Processes >= 1
		if idle == (first || last) {
			t.Errorf("%s: idle servers %+v", w.Key, w.IdleServers)
		}
	}
}

// TestInterleavedRunIsBalancedInTheJournal: three stacks over a cycle of
// six rounds, in the order the journal records the windows measured:
// within the case, every stack comes right before every other stack
// exactly twice and first in two rounds. A copy of the journal as an
// earlier stackbench wrote it (no order in its protocol) still reports,
// as the rotated order, and its resume is refused with the reason.
func TestInterleavedRunIsBalancedInTheJournal(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	f := flakyFile("[ok]", "  gate: off\n  layout: interleaved")
	i := strings.Index(f, "stacks:")
	stack := f[i+len("stacks:\n"):]
	f += strings.Replace(stack, "name: flaky", "name: flaky-b", 1) + strings.Replace(stack, "name: flaky", "name: flaky-c", 1)
	path := writeFile(t, f)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{Rounds: plan.WilliamsCycle(3), Window: 500 * time.Millisecond, Warmup: 100 * time.Millisecond, WarmupMax: 100 * time.Millisecond}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	_, res := runtest.Finals(t, dir)
	var ws []journal.Window
	for _, w := range res.Windows {
		if w.Final {
			ws = append(ws, w)
		}
	}
	if len(ws) != 18 {
		t.Fatalf("%d final windows, want 18", len(ws))
	}
	pairs, first := map[string]int{}, map[string]int{}
	for i, w := range ws {
		if i > 0 && ws[i-1].Index > w.Index {
			t.Errorf("%s journaled after %s, which comes later in the plan", w.Key, ws[i-1].Key)
		}
		if i == 0 || ws[i-1].Round != w.Round {
			first[w.Stack]++
			continue
		}
		pairs[ws[i-1].Stack+" "+w.Stack]++
	}
	for _, x := range []string{"flaky", "flaky-b", "flaky-c"} {
		if first[x] != 2 {
			t.Errorf("%s first in %d rounds of 6, want 2", x, first[x])
		}
		for _, y := range []string{"flaky", "flaky-b", "flaky-c"} {
			if n := pairs[x+" "+y]; x != y && n != 2 {
				t.Errorf("%s right before %s %d times in 6 rounds, want 2 (pairs %v)", x, y, n, pairs)
			}
		}
	}
	if res.Plan.Plan.Protocol.Order != plan.OrderWilliams {
		t.Errorf("journaled order %q", res.Plan.Plan.Protocol.Order)
	}
	b, err := os.ReadFile(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	// The journal as an earlier stackbench wrote it: no order, and a
	// fingerprint of a protocol without one.
	old := bytes.Replace(b, []byte(`"order":"williams",`), nil, 1)
	if bytes.Equal(old, b) {
		t.Fatal("no order in the journal's plan")
	}
	old = regexp.MustCompile(`"fingerprint":"sha256:[0-9a-f]+"`).ReplaceAll(old, []byte(`"fingerprint":"sha256:0123456789abcdef"`))
	if err := os.WriteFile(filepath.Join(dir, journal.FileName), old, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := report.Build(dir)
	if err != nil || m.Header.Order != "rotation" || len(m.Steps) == 0 {
		t.Fatalf("the old journal's report: %v, order %q", err, m.Header.Order)
	}
	_, err = runFile(t, context.Background(), path, dir, plan.Overrides{Rounds: plan.WilliamsCycle(3), Window: 500 * time.Millisecond, Warmup: 100 * time.Millisecond, WarmupMax: 100 * time.Millisecond}, true)
	if err == nil || !strings.Contains(err.Error(), "laid out in the rotated order of an earlier stackbench") {
		t.Errorf("resume of the old journal: %v", err)
	}
}
