package run

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// A new run's databases are named after the run (stackbench_run_ and
// eight hex digits), journaled with its plan; a resume names its copies
// as the journal says, and the journal of an earlier stackbench, which
// names none, resumes with the name every run used then, stackbench_run.
func TestRunDatabaseNameIsTheRunsOwnAndSurvivesAResume(t *testing.T) {
	path := writeFile(t, flakyFile("[ok]", "  gate: off"))
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	open := func(dir string, resume bool) *runner {
		t.Helper()
		p, err := f.Resolve(plan.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		r := &runner{opt: Options{File: f, Plan: p, Dir: dir, Resume: resume}, progress: newProgress(io.Discard, false, 0),
			out: &Outcome{Flagged: map[journal.Flag]int{}}, serving: serving{seq: map[string]int{}}, resumeState: resumeState{latencyDone: map[string]bool{}, latencyRates: map[string]journal.LatencyRate{}}}
		if err := r.openJournal(); err != nil {
			t.Fatal(err)
		}
		r.jw.Close()
		return r
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	a, b := open(dirA, false), open(dirB, false)
	if !regexp.MustCompile(`^stackbench_run_[0-9a-f]{8}$`).MatchString(a.runDatabase) || a.runDatabase == b.runDatabase {
		t.Fatalf("two new runs' databases begin %q and %q; want stackbench_run_ and 8 hex digits, distinct", a.runDatabase, b.runDatabase)
	}
	res, err := journal.ReadDir(dirA)
	if err != nil || res.Plan == nil || res.Plan.RunDatabase != a.runDatabase {
		t.Fatalf("the plan record names %+v (%v); want %s", res.Plan, err, a.runDatabase)
	}
	if got := open(dirA, true).runDatabase; got != a.runDatabase {
		t.Errorf("the resume's databases begin %q; want the journal's %q", got, a.runDatabase)
	}

	// The journal as stackbench wrote it before: no run_database.
	jpath := filepath.Join(dirB, journal.FileName)
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(data), `,"run_database":"`+b.runDatabase+`"`, "", 1)
	if old == string(data) {
		t.Fatalf("the journal has no run_database to remove:\n%s", data)
	}
	if err := os.WriteFile(jpath, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := open(dirB, true).runDatabase; got != runDatabase {
		t.Errorf("the resume of an earlier journal names its databases %q; want %q", got, runDatabase)
	}
}
