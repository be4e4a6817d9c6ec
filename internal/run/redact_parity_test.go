package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// TestParityFailureShowsSlugsAndHidesTokens: a parity failure quotes the
// request sent and the answer got; the captured slug in them is shown, so
// that the finding can be read, and the captured token (named token,
// sent in an Authorization header) is not, in the body or anywhere.
func TestParityFailureShowsSlugsAndHidesTokens(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	path := writeFile(t, bins.OwnAppFile(`  - name: odd
    dir: .
    env: {ODD: "1"}
    start: `+ownAppBin+"\n"))
	dir := filepath.Join(t.TempDir(), "results")
	f, err := plan.LoadEnv(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(plan.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	_, err = Run(context.Background(), Options{File: f, Plan: p, Dir: dir, Stackbench: stackbenchBin, Log: &log, ToolVersion: "test", PoolDir: t.TempDir()})
	if !errors.Is(err, ErrParity) {
		t.Fatalf("run: %v, want the parity gate to fail\n%s", err, log.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, ParityFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, "/articles/bench-1") || !strings.Contains(text, `"slug":"bench-1"`) {
		t.Errorf("the captured slug is not shown in the finding:\n%s", text)
	}
	if strings.Contains(text, "tok-bench") || strings.Contains(log.String(), "tok-bench") || !strings.Contains(text, `"token":"[redacted]"`) {
		t.Errorf("the captured token is shown, or not redacted in the body:\n%s", text)
	}
}
