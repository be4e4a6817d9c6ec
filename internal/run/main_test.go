package run

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// Parallel tests: Go runs the tests that call t.Parallel after all the
// others, at most GOMAXPROCS of them at once. Those that do are the local
// runs whose assertions are about what was measured, where and in which
// order, never about time, CPU or the flags a busy host raises, on stacks
// without a database or with one of their own (the shared cluster's
// checkpoints would land in one another's windows). The others measure
// time or CPU, look for the load process among this binary's children
// (loadRunning) or change the package's state (captureHost): they run
// alone. So do the runs over hosts: each asserts that every generator
// host served requests in every window, which a generator starved by a
// run beside it does not (TestSetupStepsAcrossHosts failed so in .ci/run,
// 2026-12-03, with its generator on load2 at no success in a window).

// Binaries the tests build once: the stackbench command (the run drives
// `stackbench load` as a child process) and the test servers.
var (
	stackbenchBin string
	flakyBin      string
	ownAppBin     string
	refServerDir  string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stackbench-run-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stackbenchBin = filepath.Join(dir, "stackbench")
	flakyBin = filepath.Join(dir, "flaky")
	ownAppBin = filepath.Join(dir, "ownapp")
	root, _ := filepath.Abs("../..")
	refServerDir = filepath.Join(root, "apps", "nethttp-pgx")
	for _, b := range []struct{ out, pkg string }{
		{stackbenchBin, "./cmd/stackbench"},
		{flakyBin, "./internal/run/testdata/flaky"},
		{ownAppBin, "./internal/run/testdata/ownapp"},
		{filepath.Join(dir, "server"), "./apps/nethttp-pgx"},
	} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", b.pkg, err, out)
			os.Exit(1)
		}
	}
	refServerBin = filepath.Join(dir, "server")
	os.Exit(pgtest.Run(m, func() { os.RemoveAll(dir) }))
}

var refServerBin string
