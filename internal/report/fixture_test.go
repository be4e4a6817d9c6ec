package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/hist"
	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// The fixture is a synthetic journal, testdata/run/journal.jsonl: a
// three-stack saas-slice run at c=10 and c=100 over three rounds, made with
// --skip-parity and resumed once, with every kind of trouble a report must
// show: a whole invalid cell, a failed cell (the server died, was
// restarted and died again), contended windows after spent retries,
// client-bound and checkpointed windows, a suspended try that was redone,
// and a stack whose boot suite failed. Its figures are made up but
// plausible; its latency histograms are real HDR histograms. It is written
// by writeFixtureJournal under -update and read back like any results
// directory.

const fixtureDir = "testdata/run"

var (
	fixtureStacks = []string{"nethttp", "chi", "gin"}
	fixtureConc   = []int{10, 100}
	fixtureStart  = time.Date(2026, 11, 29, 18, 45, 0, 0, time.UTC)
)

// fixtureRounds is four, not the standard three: with three windows a side
// no U test can reach α=0.05, and the fixture must show both outcomes.
const fixtureRounds = 4

// fixtureBaseRPS is each case's throughput for nethttp at c=100.
var fixtureBaseRPS = map[string]float64{"health": 52000, "echo": 38000, "me": 9000, "user": 8000, "list": 5200, "order": 3100, "cpu": 410}

// fixtureModel builds the report model of the fixture journal, rewriting
// the journal first under -update.
func fixtureModel(t *testing.T) *Model {
	t.Helper()
	if *update {
		writeFixtureJournal(t, fixtureDir)
	}
	m, err := Build(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func writeFixtureJournal(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, journal.FileName)
	os.Remove(path)
	jw, _, err := journal.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer jw.Close()
	add := func(kind journal.Kind, rec any) {
		t.Helper()
		if err := jw.Append(kind, rec); err != nil {
			t.Fatal(err)
		}
	}
	w, _ := workload.Builtin("saas-slice", workload.DefaultJWTSecret)
	pl := fixturePlan(w)
	add(journal.KindPlan, journal.Plan{RunID: "20261129-184500", CreatedAt: fixtureStart, ToolVersion: "v0.1.0-test",
		SkipParity: true, Plan: pl, Args: []string{"run", "-f", "stackbench.yaml", "--skip-parity"}, Database: "embedded"})
	add(journal.KindEnvironment, fixtureEnvironment(fixtureStart))
	add(journal.KindParity, journal.Parity{Skipped: true})
	add(journal.KindBoot, fixtureBoot("nethttp", 4.1, 9<<20))
	add(journal.KindBoot, fixtureBoot("chi", 4.3, 9<<20+300<<10))
	add(journal.KindBoot, journal.Boot{Stack: "gin", Error: "no 200 from /health within 10s (exit status 2)"})
	clock := fixtureStart.Add(2 * time.Minute)
	for _, pw := range pl.Windows {
		if pw.Index == len(pl.Windows)/2 {
			// The run was stopped here and resumed.
			clock = clock.Add(5 * time.Minute)
			add(journal.KindEnvironment, fixtureEnvironment(clock))
			add(journal.KindEvent, journal.Event{Time: clock, Level: journal.LevelInfo, Msg: fmt.Sprintf("resumed: %d of %d windows already measured", pw.Index, len(pl.Windows))})
		}
		for _, rec := range fixtureTries(w, pw, &clock) {
			add(journal.KindWindow, rec)
			if rec.HasFlag(journal.FlagServerDied) {
				add(journal.KindEvent, journal.Event{Time: rec.EndedAt, Level: journal.LevelWarning, Stack: rec.Stack,
					Msg: rec.Stack + " died during " + rec.Key + ": " + rec.Error})
			}
		}
	}
}

func fixturePlan(w *workload.Workload) plan.Plan {
	pl := plan.Plan{
		File:         "stackbench.yaml",
		WorkloadName: w.Name,
		Protocol: plan.Protocol{Profile: "standard", Concurrency: fixtureConc, Warmup: 5 * time.Second, Window: 10 * time.Second,
			Timeout: 30 * time.Second, Rounds: fixtureRounds, Cases: w.CaseNames(), Fresh: plan.FreshRound, BootStarts: 10,
			Gate: plan.Gate{Mode: plan.GateAuto, Retries: 2, Wait: 30 * time.Second}},
		NeedsDatabase: true,
		Fingerprint:   "sha256:5be1f0c2d3e4",
	}
	for _, s := range fixtureStacks {
		pl.Stacks = append(pl.Stacks, plan.Stack{Name: s, Dir: "/src/apps/" + s, Build: "go build -o server .", Start: "./server", Health: "/health"})
	}
	proc := 0
	for round := 1; round <= fixtureRounds; round++ {
		for slot := range fixtureStacks {
			stack := fixtureStacks[(slot+round-1)%len(fixtureStacks)]
			first := true
			for _, c := range w.Cases {
				for _, conc := range fixtureConc {
					pl.Windows = append(pl.Windows, plan.Window{Key: plan.WindowKey(round, stack, c.Name, conc), Index: len(pl.Windows),
						Round: round, Slot: slot, Stack: stack, Case: c.Name, Concurrency: conc, Process: proc, NewProcess: first, Inserts: c.Inserts})
					first = false
				}
			}
			proc++
		}
	}
	return pl
}

func fixtureEnvironment(at time.Time) journal.Environment {
	return journal.Environment{
		CapturedAt: at,
		Host: host.Environment{OS: "linux", Arch: "amd64", CPUModel: "Test CPU @ 2.0GHz", CPUCount: 2, CPUsAvailable: 2,
			Kernel: "6.1.0-test #1 SMP", MemoryBytes: 24 << 30, Somaxconn: 4096, OpenFileLimit: 1048576,
			OpenFileLimitHard: 1048576, GoVersion: "go1.26.8"},
		PostgresVersion:    "15.10",
		PostgresSettings:   map[string]string{"shared_buffers": "128MB", "max_connections": "200"},
		StackVersions:      map[string]string{"nethttp": "go1.26.8 net/http", "chi": "chi v5.5.0", "gin": "gin v1.12.0"},
		GateBaselineCores:  0.15,
		GateThresholdCores: 0.3,
		Warnings:           []string{"the idle host already uses 0.15 cores of foreign CPU, half the contention gate's 0.30: windows may be redone often"},
	}
}

func fixtureBoot(stack string, medianMs float64, idle int64) journal.Boot {
	b := journal.Boot{Stack: stack}
	for i := range 10 {
		jitter := []float64{0.95, 1.0, 1.07, 0.97, 1.02, 1.3, 0.99, 1.01, 0.96, 1.04}[i]
		st := journal.BootStart{Order: i + 1, ReadySeconds: medianMs * jitter / 1e3,
			FirstDBRequestSeconds: 0.0023 * jitter, FirstOK: true, IdleRSSBytes: idle + int64(i%3)<<10}
		if stack == "chi" && i == 5 {
			st.FirstOK, st.FirstError = false, "status 500 (expected 200)"
		}
		b.Starts = append(b.Starts, st)
	}
	return b
}

// fixtureTries returns the journal records of one planned window: the
// final try, preceded by the tries that were redone.
func fixtureTries(w *workload.Workload, pw plan.Window, clock *time.Time) []*journal.Window {
	c, _ := w.Case(pw.Case)
	si := slices.Index(fixtureStacks, pw.Stack)
	ci := slices.Index(w.CaseNames(), pw.Case)
	rec := func(attempt int) *journal.Window {
		r := fixtureWindow(c, pw, si, ci, attempt, *clock)
		*clock = r.EndedAt.Add(3 * time.Second)
		return r
	}
	switch {
	case pw.Stack == "gin" && pw.Case == "cpu" && pw.Concurrency == 10:
		// The server dies on every try: restarted once, then the cell is failed.
		died := func(attempt int, final bool) *journal.Window {
			r := &journal.Window{Key: pw.Key, Index: pw.Index, Round: pw.Round, Slot: pw.Slot, Stack: pw.Stack, Case: pw.Case,
				Concurrency: pw.Concurrency, Attempt: attempt, Final: final, StartedAt: *clock, EndedAt: clock.Add(4 * time.Second),
				Flags: []journal.Flag{journal.FlagServerDied}, Reasons: []string{journal.FlagServerDied.Reason("exited with signal: killed (out of memory?)")},
				Error: "exited with signal: killed (out of memory?)", EnvironmentRef: 1}
			if final {
				r.Flags = append(r.Flags, journal.FlagFailed)
				r.Reasons = append(r.Reasons, journal.FlagFailed.Reason("the server died again after a restart; the cell is failed and the run goes on"))
			}
			*clock = r.EndedAt.Add(3 * time.Second)
			return r
		}
		return []*journal.Window{died(1, false), died(2, true)}
	case pw.Stack == "chi" && pw.Case == "list" && pw.Concurrency == 100 && pw.Round == 2:
		// Contended three times: two redos (the budget), then kept, flagged.
		var out []*journal.Window
		for a := 1; a <= 3; a++ {
			r := rec(a)
			r.Flags = append(r.Flags, journal.FlagContended)
			r.Reasons = append(r.Reasons, journal.FlagContended.Reason("foreign CPU averaged 0.71 cores, above the gate's 0.30 (retry budget of 2 spent)"))
			r.ForeignCores = 0.71
			r.Final = a == 3
			out = append(out, r)
		}
		return out
	case pw.Stack == "nethttp" && pw.Case == "me" && pw.Concurrency == 10 && pw.Round == 2:
		s := rec(1)
		s.Final, s.Suspended = false, true
		s.Flags = append(s.Flags, journal.FlagSuspended)
		s.Reasons = append(s.Reasons, journal.FlagSuspended.Reason("the boot-time clock ran 41.2 s ahead of the monotonic clock: the machine slept"))
		return []*journal.Window{s, rec(2)}
	}
	return []*journal.Window{rec(1)}
}

// fixtureWindow is one successful-looking window with the fixture's
// scripted troubles applied.
func fixtureWindow(c workload.Case, pw plan.Window, si, ci, attempt int, start time.Time) *journal.Window {
	// Frameworks differ on framework-only routes; on database routes the
	// driver dominates and the differences shrink.
	speed := []float64{1.0, 0.985 - 0.01*float64(ci%3), 1.12 + 0.03*float64(ci%3)}[si]
	if c.Database {
		speed = []float64{1.0, 0.995, 1.01 + 0.025*float64(ci-2)}[si]
	}
	if pw.Concurrency == 10 {
		speed *= 0.8
	}
	jitter := 1 + ([]float64{0, -0.03, 0.02, 0.01}[(pw.Round+si+ci)%4])*(0.6+0.2*float64(ci%3)) + 0.004*float64(attempt-1)
	rps := fixtureBaseRPS[c.Name] * speed * jitter
	const seconds = 10.0
	cores := []float64{1.55, 1.58, 1.50}[si] * (0.98 + 0.02*float64(pw.Round%3))
	successes := int64(math.Round(rps * seconds))
	r := &journal.Window{Key: pw.Key, Index: pw.Index, Round: pw.Round, Slot: pw.Slot, Stack: pw.Stack, Case: pw.Case,
		Concurrency: pw.Concurrency, Attempt: attempt, Final: true, Flags: []journal.Flag{},
		StartedAt: start, EndedAt: start.Add(15 * time.Second), WallSeconds: seconds, EnvironmentRef: 1 + pw.Index*2/(fixtureRounds*len(fixtureStacks)*7*len(fixtureConc)),
		Process: journal.ProcessInfo{PID: 4000 + pw.Index, Seq: pw.Round, BootSeconds: 0.004}}
	res := &load.Result{SchemaVersion: load.SchemaVersion, URL: "http://127.0.0.1:18080" + c.Path, Method: c.Method, Mode: "closed",
		DurationSeconds: seconds, WarmupSeconds: 5, TimeoutSeconds: 30, Connections: pw.Concurrency, Expect: c.Expect, PoolSize: 1,
		Attempts: successes, Successes: successes, ThroughputRPS: float64(successes) / seconds,
		Errors:              map[string]int64{"timeout": 0, "reset": 0, "refused": 0, "closed": 0, "other": 0},
		GeneratorCPUSeconds: 3.5, CoresAvailable: 2, Warmup: load.Phase{Attempts: successes / 2, Successes: successes / 2}}
	if !c.Database { // the framework-only routes starve the generator a little
		res.GeneratorWaitSeconds = 1.2
	}
	r.Server = journal.Usage{CPUSeconds: cores * seconds, Cores: cores,
		RSSMeanBytes: int64(18+2*si+pw.Concurrency/20) << 20, RSSPeakBytes: int64(21+2*si+pw.Concurrency/20+pw.Round) << 20, Processes: 1}
	if c.Database {
		r.Database = journal.Usage{CPUSeconds: 6, Cores: 0.6, Processes: 12}
		r.DBBefore = &journal.DBStats{Checkpoints: int64(pw.Index)}
		r.DBAfter = &journal.DBStats{Checkpoints: int64(pw.Index)}
	}
	r.Generator = journal.Usage{CPUSeconds: 3.5, Cores: 0.35}
	switch {
	case pw.Stack == "gin" && pw.Case == "order" && pw.Concurrency == 100:
		res.Errors["reset"], res.Errors["status_500"] = 910, 270
		res.Attempts += 1180
		r.Flags = append(r.Flags, journal.FlagInvalid)
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s: %.2f%% of %d attempts failed (reset 910, status_500 270)",
			journal.FlagInvalid, 100*1180/float64(res.Attempts), res.Attempts))
	case pw.Stack == "nethttp" && pw.Case == "health" && pw.Concurrency == 100:
		res.ClientBound, res.GeneratorCPUSeconds = true, 18
		r.Generator = journal.Usage{CPUSeconds: 18, Cores: 1.8}
		r.Flags = append(r.Flags, journal.FlagClientBound)
		r.Reasons = append(r.Reasons, journal.FlagClientBound.Reason("the load generator used 18.00 CPU-s in 10.00 s on 2 cores (≥ 85 %): the figure describes the generator more than the server"))
	case pw.Stack == "nethttp" && pw.Case == "order" && pw.Concurrency == 10 && pw.Round == 3:
		r.DBAfter.Checkpoints++
		r.Flags = append(r.Flags, journal.FlagCheckpoint)
		r.Reasons = append(r.Reasons, journal.FlagCheckpoint.Reason("1 checkpoint(s) happened during the window"))
	}
	h := fixtureHistogram(float64(pw.Concurrency)*1e6/rps, uint64(pw.Index*10+attempt))
	res.LatencyHist, _ = h.Encode()
	res.LatencyMicros = load.Latency{P50: h.PercentileMicros(50), P75: h.PercentileMicros(75), P90: h.PercentileMicros(90),
		P99: h.PercentileMicros(99), P999: h.PercentileMicros(99.9), P9999: h.PercentileMicros(99.99), Max: h.MaxMicros(), Mean: h.MeanMicros()}
	r.Load = res
	return r
}

// fixtureHistogram draws 4,000 latencies around a median, log-normally,
// from a fixed seed.
func fixtureHistogram(medianMicros float64, seed uint64) *hist.Histogram {
	rng := rand.New(rand.NewPCG(seed, 7))
	h := hist.New(30 * time.Second)
	for range 4000 {
		h.RecordMicros(int64(medianMicros * math.Exp(0.45*rng.NormFloat64())))
	}
	return h
}

// stoppedFixture copies the first part of the fixture journal, ending in a
// torn line, into a new results directory: a run killed mid-write.
func stoppedFixture(t *testing.T, keepLines int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var b bytes.Buffer
	for _, l := range lines[:keepLines] {
		b.Write(l)
	}
	b.Write(lines[keepLines][:len(lines[keepLines])/2])
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, journal.FileName), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
