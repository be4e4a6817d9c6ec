// Package acrosshosts tests runs across hosts: network namespaces with an
// sshd each (internal/remote/sshtest) as the server's, the database's and
// the generators' hosts. They are a package of their own so that
// `go test ./...` runs them beside internal/run's local tests rather than
// after them; the tests of runs across hosts that reach into the run
// (its test hooks) stay in internal/run.
//
// Each test here runs alone: each asserts that every generator host served
// requests in every window, which a generator starved by a run beside it
// does not (TestSetupStepsAcrossHosts failed so in .ci/run, 2026-12-03,
// with its generator on load2 at no success in a window).
package acrosshosts

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// bins are the binaries the tests build once (runtest.Build); the agents
// on the hosts are copies of bins.Stackbench.
var bins *runtest.Binaries

func TestMain(m *testing.M) {
	b, err := runtest.Build("../../..", "acrosshosts")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = b
	os.Exit(pgtest.Run(m, b.Remove))
}

// onHosts starts the named test hosts (runtest.OnHosts).
func onHosts(t *testing.T, hosts []string, stacks ...string) *sshtest.Net {
	t.Helper()
	return runtest.OnHosts(t, bins.Stackbench, hosts, stacks...)
}

// hostsRun resolves the comparison file at path into the options of a run
// over n's hosts into a new results directory; the run's log is shown
// when the test fails.
func hostsRun(t *testing.T, n *sshtest.Net, path string) run.Options {
	t.Helper()
	f, p, ro, log := runtest.HostsPlan(t, n, path, bins.Stackbench)
	return run.Options{File: f, Plan: p, Dir: filepath.Join(t.TempDir(), "results"), Stackbench: bins.Stackbench, Log: log, ToolVersion: "test", Remote: ro}
}

// writeFile writes a comparison file into a new directory.
func writeFile(t *testing.T, yaml string) string {
	t.Helper()
	return runtest.WriteFile(t, "stackbench.yaml", yaml)
}
