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

// Binaries the tests build once: the stackbench command (the run drives
// `stackbench load` as a child process) and the test servers: the Go
// reference server (apps/nethttp-pgx) and the gRPC one (apps/grpc-pgx).
var (
	stackbenchBin string
	flakyBin      string
	ownAppBin     string
	refServerDir  string
	refServerBin  string
	grpcServerDir string
	grpcServerBin string
)

// TestMain builds the binaries in one go command, which links them side
// by side (a go build each took one after another), then runs the tests.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stackbench-run-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	root, _ := filepath.Abs("../..")
	refServerDir = filepath.Join(root, "apps", "nethttp-pgx")
	grpcServerDir = filepath.Join(root, "apps", "grpc-pgx")
	// With -o naming a directory, each main package's binary is written
	// there under its directory's name.
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"./cmd/stackbench", "./internal/run/testdata/flaky", "./internal/run/testdata/ownapp", "./apps/nethttp-pgx", "./apps/grpc-pgx")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the test binaries: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	stackbenchBin = filepath.Join(dir, "stackbench")
	flakyBin = filepath.Join(dir, "flaky")
	ownAppBin = filepath.Join(dir, "ownapp")
	refServerBin = filepath.Join(dir, "nethttp-pgx")
	grpcServerBin = filepath.Join(dir, "grpc-pgx")
	os.Exit(pgtest.Run(m, func() { os.RemoveAll(dir) }))
}
