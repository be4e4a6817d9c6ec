package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory that is not a run's results is bad input, whichever command
// is given it, and the message says what to name instead.
func TestNotAResultsDirectory(t *testing.T) {
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(work, "garbled"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "garbled", "journal.jsonl"), []byte("garbage\n{\"kind\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "missing"}, "missing does not exist; name a results directory"},
		{[]string{"report", "file"}, "file is a file, not a directory"},
		{[]string{"report", "empty"}, "empty has no journal.jsonl; name a results directory"},
		{[]string{"report", "empty", "missing"}, "empty has no journal.jsonl"},
		{[]string{"run", "--resume", "empty"}, "--resume " + filepath.Join(work, "empty") + " has no journal.jsonl"},
		{[]string{"run", "--resume", "missing"}, "does not exist"},
		{[]string{"report", "garbled"}, "garbled has a journal.jsonl without a plan record: stackbench run did not write it"},
		{[]string{"run", "--resume", "garbled"}, "--resume " + filepath.Join(work, "garbled") + " has a journal.jsonl without a plan record"},
		{[]string{"report", "--pricing", "nope.json", "empty"}, "--pricing " + filepath.Join(work, "nope.json") + ": cannot read it (no such file or directory)"},
	} {
		code, _, errOut := runMain(t, work, nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: code %d, stderr %q; want 2 and one line holding %q", c.args, code, errOut, c.want)
		}
	}
}
