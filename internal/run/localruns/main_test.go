// Package localruns tests local runs that run alone in their package
// (each judges what a busy CPU changes: here, the profiles' sample
// counts) and need nothing of the run but its exported surface: the
// profiling run. They are a package of their own for the reason
// internal/run/acrosshosts is: go test starts the packages' test binaries
// in the order of their paths, two at a time, so internal/run, the
// longest by far, holds one of the two slots to the end of the suite while
// the packages after it share the other; here they run on that other
// slot, beside internal/run's tests as every package's tests run beside
// another package's, instead of lengthening internal/run. The runs that
// reach into the run (its test hooks, captureHost, its own child
// processes) stay in internal/run. Move a test here only while the other
// slot's packages (acrosshosts and those after internal/run) still end
// before internal/run does: past that point the move lengthens the suite.
package localruns

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// bins are the binaries the tests build once (runtest.Build).
var bins *runtest.Binaries

func TestMain(m *testing.M) {
	b, err := runtest.Build("../../..", "localruns")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = b
	os.Exit(pgtest.Run(m, b.Remove))
}

// refStack lists one stack of the Go reference server.
func refStack(name string) string {
	return "stacks:\n  - name: " + name + "\n    dir: " + bins.RefServerDir + "\n    start: " + bins.RefServer + "\n"
}

// runLocal runs the comparison file at path into dir, resuming it when
// resume is set, with the parity gate skipped: the tests here assert
// nothing the gate does. The run's log is shown when the test fails.
func runLocal(t *testing.T, path, dir string, resume bool) (*run.Outcome, error) {
	t.Helper()
	f, p, log := runtest.LocalPlan(t, path)
	return run.Run(context.Background(), run.Options{File: f, Plan: p, Dir: dir, Resume: resume, SkipParity: true,
		Stackbench: bins.Stackbench, Log: log, ToolVersion: "test"})
}

// writeFile writes a comparison file into a new directory and returns its
// path.
func writeFile(t *testing.T, yaml string) string {
	t.Helper()
	return runtest.WriteFile(t, "stackbench.yaml", yaml)
}

// resultsDir is a new results directory's path.
func resultsDir(t *testing.T) string { return filepath.Join(t.TempDir(), "results") }
