package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStepStacks(t *testing.T) {
	stacks := []string{"pq", "pgx", "pgo", "fiber"}
	got, err := stepStacks("pgx..fiber", stacks)
	if err != nil || strings.Join(got, ",") != "pgx,pgo,fiber" {
		t.Errorf("pgx..fiber = %v, %v; want pgx, pgo, fiber", got, err)
	}
	for spec, want := range map[string]string{
		"pgx":       "write FROM..TO",
		"pgo..pq":   "must be listed before",
		"pgx..nope": `no stack "nope"`,
		"..pgx":     "write FROM..TO",
	} {
		if _, err := stepStacks(spec, stacks); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--steps %s: %v; want an error saying %q", spec, err, want)
		}
	}
}

// explain's report of one round prints the profiles' findings, not calls
// that one window per cell cannot make: no verdict, no step list.
func TestExplainReportPrintsNoCalls(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../report/testdata/run/journal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	writeExplainReport(Env{Stdout: &out, Stderr: &errOut}, dir)
	got := out.String()
	for _, absent := range []string{"Decided:", "Not decided:", "What each step bought"} {
		if strings.Contains(got, absent) {
			t.Errorf("explain's output has %q:\n%s", absent, got)
		}
	}
	if !strings.Contains(got, "too few for calls") || !strings.Contains(got, "report: "+filepath.Join(dir, "report.html")) {
		t.Errorf("explain's output does not say why it has no calls, or where its report is:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("no report written: %v (stderr %s)", err, errOut.String())
	}
}
