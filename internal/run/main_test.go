package run

import (
	"fmt"
	"os"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// Parallel tests: Go runs the tests that call t.Parallel after all the
// others, at most GOMAXPROCS of them at once. Those that do are the local
// runs whose assertions are about what was measured, where and in which
// order, never about time, CPU or the flags a busy host raises: on stacks
// without a database, with one of their own, or on the shared cluster
// when nothing they assert minds a checkpoint of another run landing in
// their windows (each run's databases carry the run's own name, so runs
// on one cluster never meet otherwise). The others measure
// time or CPU, look for the load process among this binary's children
// (loadRunning) or change the package's state (captureHost): they run
// alone. So do the runs over hosts: each asserts that every generator
// host served requests in every window, which a generator starved by a
// run beside it does not (TestSetupStepsAcrossHosts failed so in .ci/run,
// 2026-12-03, with its generator on load2 at no success in a window).
// Those here reach into the run (testHooks); the others are a package of
// their own, internal/run/acrosshosts, which go test runs beside this one.
// So is the profiling run, which runs alone but needs only the run's
// exported surface: internal/run/localruns (see its package comment for
// when another test should move there: this package is the suite's
// longest and the last to end, but the other slot must stay shorter).

// Binaries the tests build once (runtest.Build): the stackbench command
// (the run drives `stackbench load` as a child process) and the test
// servers: the Go reference server (apps/nethttp-pgx) and the gRPC one
// (apps/grpc-pgx).
var (
	bins          *runtest.Binaries
	stackbenchBin string
	flakyBin      string
	ownAppBin     string
	refServerDir  string
	refServerBin  string
	grpcServerDir string
	grpcServerBin string
)

func TestMain(m *testing.M) {
	b, err := runtest.Build("../..", "run")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = b
	stackbenchBin, flakyBin, ownAppBin = b.Stackbench, b.Flaky, b.OwnApp
	refServerDir, refServerBin = b.RefServerDir, b.RefServer
	grpcServerDir, grpcServerBin = b.GRPCServerDir, b.GRPCServer
	os.Exit(pgtest.Run(m, b.Remove))
}
