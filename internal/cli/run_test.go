package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/run"
)

// A flag given with --resume would be silently replaced by the recorded
// ones; it is refused instead.
func TestResumeRefusesOtherFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--resume", "r", "--rounds", "2"}, "drop --rounds"},
		{[]string{"run", "--resume", "r", "--out", "o"}, "drop --out"},
		{[]string{"run", "-f", "other.yaml", "--resume", "r", "--skip-parity"}, "drop --skip-parity"},
	} {
		code, _, errOut := runMain(t, t.TempDir(), nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// A stopped run's report is partial: the steps are not printed, as most
// lack their windows; the path to the partial report is.
func TestWriteRunReportOfAStoppedRun(t *testing.T) {
	dir := resultsDir(t)
	var out, errOut strings.Builder
	env := Env{Stdout: &out, Stderr: &errOut}
	writeRunReport(env, dir, true)
	if want := "partial report, of the windows measured so far: " + filepath.Join(dir, "report.html") + "\n"; out.String() != want || errOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want %q", out.String(), errOut.String(), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Error(err)
	}
	out.Reset()
	writeRunReport(env, dir, false)
	if !strings.Contains(out.String(), "What each step bought") || !strings.Contains(out.String(), "\nreport: ") {
		t.Errorf("a finished run's output lacks the steps:\n%s", out.String())
	}
}

func TestPrintOutcome(t *testing.T) {
	for _, c := range []struct {
		o    *run.Outcome
		err  error
		want string
	}{
		{&run.Outcome{Planned: 8, Measured: 8, Elapsed: 3 * time.Second}, nil, "measured 8 windows (0 were already journaled) of 8 in 3s\n"},
		{&run.Outcome{Planned: 8, Measured: 2, Skipped: 4}, context.Canceled, "measured 2 windows (4 were already journaled) of 8 in 0s\n"},
		{&run.Outcome{Planned: 8}, errors.New("the plan changed"), ""},
		{nil, errors.New("no database"), ""},
	} {
		var out strings.Builder
		printOutcome(Env{Stderr: &out}, c.o, c.err)
		if out.String() != c.want {
			t.Errorf("outcome %+v, error %v: printed %q, want %q", c.o, c.err, out.String(), c.want)
		}
	}
}

func TestKeptDatabaseSaysWhereAndHowBig(t *testing.T) {
	results, cluster := t.TempDir(), t.TempDir()
	if got := keptDatabase(results); got != "" {
		t.Errorf("without %s: %q, want nothing", embeddedDBPathFile, got)
	}
	if err := os.WriteFile(filepath.Join(cluster, "base"), make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(results, embeddedDBPathFile), []byte(cluster+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := " (its embedded database is kept for it in " + cluster + ", 3 MiB; delete that directory if you will not resume)"
	if got := keptDatabase(results); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	os.RemoveAll(cluster)
	if got := keptDatabase(results); got != "" {
		t.Errorf("cluster gone: %q, want nothing", got)
	}
}

func TestRunRefusesAResultsDirectoryInUse(t *testing.T) {
	work := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./server}\n")
	dir := resultsDir(t)
	code, _, errOut := runMain(t, work, nil, "run", "--out", dir)
	if want := dir + " already holds a run; continue it with: stackbench run --resume " + dir; code != 2 || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("code %d, stderr %q; want 2 and one line holding %q", code, errOut, want)
	}
}

// A run that fails after its journal was made says how to continue it, since
// the same --out would now be refused.
func TestFailedRunSaysHowToContinue(t *testing.T) {
	work := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, build: 'echo no compiler >&2; exit 1', start: ./server}\n")
	out := filepath.Join(work, "out")
	code, _, errOut := runMain(t, work, nil, "run", "--out", "out", "--gate", "off", "--boot-starts", "0")
	for _, want := range []string{"stackbench run: 1 stack, ", "no compiler", "continue it with: stackbench run --resume " + out} {
		if code != ExitNotMeasured || !strings.Contains(errOut, want) {
			t.Errorf("code %d, stderr lacks %q:\n%s", code, want, errOut)
		}
	}
}

// TestDefaultResultsAreIgnored: the default results folder is made with a
// .gitignore of its own, so a run leaves git status as it was; a user's
// own .gitignore there is kept.
func TestDefaultResultsAreIgnored(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./a}\n")
	env := Env{Stdout: &strings.Builder{}, Stderr: &strings.Builder{}, Getenv: func(string) string { return "" }, Dir: dir}
	ra, err := parseRunArgs(nil, env)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := runOptions(ra, env)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "results")
	if filepath.Dir(opt.Dir) != root {
		t.Fatalf("results in %s, want under %s", opt.Dir, root)
	}
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil || !strings.Contains(string(data), "\n*\n") {
		t.Fatalf("results/.gitignore: %q, %v", data, err)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("mine\n"), 0o644)
	if _, err := runOptions(ra, env); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".gitignore")); string(data) != "mine\n" {
		t.Errorf("the user's .gitignore was replaced: %q", data)
	}
}
