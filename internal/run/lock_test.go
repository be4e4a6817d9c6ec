package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// quickOwnApp is one stack of the ownapp, one case, one round: two
// windows in a few seconds, no database.
func quickOwnApp() string {
	src := strings.Replace(bins.OwnAppFile(""), "  rounds: 2\n", "  rounds: 1\n  cases: [page]\n", 1)
	return strings.Replace(src, "  concurrency: [4]\n", "  concurrency: [2, 4]\n", 1)
}

// A resume of a journal whose last window record is whole but lost its
// newline measures that window again, as its warning says, and a second
// run of a directory in use is refused, naming the holder.
func TestResumeCutsBeforeReadingAndLocksTheDirectory(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go: it counts windows, never times them
	path := writeFile(t, quickOwnApp())
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	jpath := filepath.Join(dir, journal.FileName)
	b, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the journal up to its last window record, without the newline.
	i := bytes.LastIndex(b, []byte(`{"kind":"window"`))
	end := bytes.IndexByte(b[i:], '\n')
	last := b[i : i+end]
	if !bytes.Contains(last, []byte(`"final":true`)) {
		t.Fatalf("the last window record is not final: %s", last)
	}
	if err := os.WriteFile(jpath, b[:i+end], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, true); err != nil {
		t.Fatalf("resume: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(byKey) != len(res.Plan.Plan.Windows) {
		t.Errorf("%d final windows after the resume, want the plan's %d", len(byKey), len(res.Plan.Plan.Windows))
	}

	release, err := lockResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	_, err = runFile(t, context.Background(), path, dir, plan.Overrides{}, true)
	if err == nil || !strings.Contains(err.Error(), "is in use by another stackbench (pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("a resume of a directory in use: %v", err)
	}
}
