package localruns

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/profiling/perfrec"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// A run with profiling: on measures, after its rounds, one profile window
// per cell on a fresh process: the Go CPU profile and the allocation
// delta from the stack's pprof: path, perf's samples of the server and of
// PostgreSQL, and the statements of a database case; each journaled as a
// profiling record, never as a window. A resume measures only the profile
// windows missing from the journal.
func TestRunProfilesEveryCellAndResumes(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	stacks := refStack("go") + "    pprof: /debug/pprof\n"
	path := writeFile(t, runtest.SaasFile("database: "+admin+"\nprofile: quick\n", `  concurrency: [8]
  warmup: 100ms
  warmup_max: 100ms # a fixed warm-up: see "Fixed warm-ups" at internal/run's flakyFile
  window: 500ms
  rounds: 1
  cases: [user, cpu]
  profiling: on
`, stacks))
	dir := resultsDir(t)
	if _, err := runLocal(t, path, dir, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(byKey) != 2 {
		t.Fatalf("%d final windows, want the 2 of the plan (profile windows are not windows)", len(byKey))
	}
	if len(res.Profiling) != 2 {
		t.Fatalf("%d profiling records, want 2", len(res.Profiling))
	}
	_, perfErr := perfrec.Check(context.Background(), t.TempDir())
	perf := perfErr == nil
	if os.Getenv("CI") != "" && !perf {
		t.Fatal("perf does not work in CI; .ci/run installs linux-perf and runs as root")
	}
	for _, p := range res.Profiling {
		w := p.Window
		if w.Load == nil || p.Requests != w.Load.Successes || p.Requests == 0 {
			t.Errorf("%s: requests %d, load %v", p.Key, p.Requests, w.Load != nil)
			continue
		}
		if w.Load.DurationSeconds < 4.9 || w.Process.PID == byKey["r1/go/"+p.Case+"/c8"].Process.PID {
			t.Errorf("%s: a %.1f s window on pid %d; want %s on a fresh process", p.Key, w.Load.DurationSeconds, w.Process.PID, plan.MinProfilingWindow)
		}
		kinds := map[string]journal.ProfileFile{}
		for _, f := range p.Profiles {
			kinds[f.Kind] = f
			data, err := os.ReadFile(filepath.Join(dir, f.Path))
			if err != nil {
				t.Errorf("%s: %v", p.Key, err)
				continue
			}
			if _, err := profile.Parse(bytes.NewReader(data)); err != nil {
				t.Errorf("%s: %s is no pprof file: %v", p.Key, f.Path, err)
			}
		}
		want := []string{journal.ProfileGoCPU, journal.ProfileGoAllocs}
		if perf {
			want = append(want, journal.ProfilePerfServer, journal.ProfilePerfDatabase)
		}
		for _, k := range want {
			if _, ok := kinds[k]; !ok {
				t.Errorf("%s: no %s profile (problems: %v)", p.Key, k, p.Problems)
			}
		}
		// A busy 5 s window gives hundreds of samples at 100 Hz on a quiet
		// host; a shared CI host leaves the server less.
		if cpu := kinds[journal.ProfileGoCPU]; cpu.Samples < 20 || cpu.RateHz != 100 {
			t.Errorf("%s: Go CPU profile of %d samples at %d Hz", p.Key, cpu.Samples, cpu.RateHz)
		}
		if perf && kinds[journal.ProfilePerfServer].Samples < 50 {
			t.Errorf("%s: perf took %d samples of the server", p.Key, kinds[journal.ProfilePerfServer].Samples)
		}
		switch p.Case {
		case "user":
			found := false
			for _, s := range p.Statements {
				// Counted from the reset at the window's opening to the
				// read after its end: within a few per cent of the window.
				if strings.Contains(s.Query, "users") && math.Abs(float64(s.Calls)/float64(p.Requests)-1) < 0.05 {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no users statement called about once per request (%d requests) in %+v (problems %v)", p.Key, p.Requests, p.Statements, p.Problems)
			}
		case "cpu":
			if len(p.Statements) != 0 {
				t.Errorf("%s: statements %+v for a case without the database", p.Key, p.Statements)
			}
		}
	}

	// Drop the last profiling record, as if the run had been stopped
	// there, and resume: only that profile window is measured again.
	dropLastLine(t, filepath.Join(dir, journal.FileName), `"kind":"profiling"`)
	out, err := runLocal(t, path, dir, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if out.Measured != 0 {
		t.Errorf("the resume measured %d windows; want none (they are journaled)", out.Measured)
	}
	_, res = runtest.Finals(t, dir)
	count := map[string]int{}
	for _, p := range res.Profiling {
		count[p.Key]++
	}
	if len(count) != 2 || count[journal.ProfilingKey("go", "user", 8)] != 1 || count[journal.ProfilingKey("go", "cpu", 8)] != 1 {
		t.Errorf("after the resume, profiling records by key: %v; want each cell once", count)
	}
}

// dropLastLine removes the journal's last line that contains marker.
func dropLastLine(t *testing.T, path, marker string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], marker) {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}
