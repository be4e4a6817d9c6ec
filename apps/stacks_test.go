// Package apps_test keeps the Go reference stacks under apps/ correct: every
// stack is built (in one go build, as CI would) and must pass the parity gate
// of both built-in workloads against a fresh seeded PostgreSQL, and their
// answers must agree with each other.
package apps_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/workload"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// testSecret is deliberately not the default, to prove JWT_SECRET is read.
const testSecret = "apps-test-secret"

// referenceStacks are the stacks the repository's comparison files name;
// TestEveryStackIsListed keeps the list equal to the main packages here.
var referenceStacks = []string{
	"nethttp-pgx", "nethttp-pgx-pgo", "nethttp-pgx-gojson", "nethttp-sqlpgx", "nethttp-pq",
	"chi-pgx", "gin-pgx", "echo-pgx", "fiber-pgx",
}

// wireStacks are reference stacks that speak another wire than the JSON
// routes over HTTP (grpc-pgx: gRPC; connect-pgx: gRPC and Connect's
// protocol), so the HTTP parity gate does not apply to them; each checks
// its answers against the JSON API in its own tests.
var wireStacks = []string{"grpc-pgx", "connect-pgx"}

// tfbStacks serve the tfb workload (TechEmpower's test types) instead.
var tfbStacks = []string{"tfb-nethttp-pgx"}

// exampleStacks serve an example's own workload (examples/response-cache:
// respcache-pgx; examples/realworld's Conduit slice: realworld-go), each
// tested by its example's test.
var exampleStacks = []string{"respcache-pgx", "realworld-go"}

func TestEveryStackIsListed(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e.Name(), "main.go")); e.IsDir() && err == nil {
			found = append(found, e.Name())
		}
	}
	want := slices.Sorted(slices.Values(slices.Concat(referenceStacks, wireStacks, tfbStacks, exampleStacks)))
	if !slices.Equal(found, want) {
		t.Errorf("main packages under apps/ are %v; referenceStacks lists %v", found, want)
	}
}

func TestReferenceStacksPassParity(t *testing.T) {
	bin := buildAll(t)
	for _, wl := range []string{"saas-slice", "micro"} {
		t.Run(wl, func(t *testing.T) {
			var mu sync.Mutex
			var results []workload.StackResult
			t.Run("stacks", func(t *testing.T) {
				for _, name := range referenceStacks {
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						res := parity(t, filepath.Join(bin, name), name, wl)
						mu.Lock()
						results = append(results, res)
						mu.Unlock()
					})
				}
			})
			// Compare takes the first result as the reference: nethttp-pgx.
			slices.SortStableFunc(results, func(a, b workload.StackResult) int {
				return slices.Index(referenceStacks, a.Stack) - slices.Index(referenceStacks, b.Stack)
			})
			failures, warnings := workload.Compare(results)
			for _, f := range append(failures, warnings...) {
				t.Errorf("across stacks: %s %s: %s\n  sent:     %s\n  expected: %s\n  got:      %s", f.Stack, f.Check, f.Problem, f.Sent, f.Expected, f.Got)
			}
		})
	}
	for _, name := range tfbStacks {
		t.Run("tfb/"+name, func(t *testing.T) {
			res := parity(t, filepath.Join(bin, name), name, "tfb")
			// The reference server writes an updates request's rows in one
			// statement, and the gate says so.
			i := slices.IndexFunc(res.Checks, func(c workload.CheckResult) bool { return c.Check == "updates/count-20" })
			if i < 0 || !strings.Contains(res.Checks[i].Got, "writes batched: 1 UPDATE") {
				t.Errorf("updates/count-20 does not report batched writes: %+v", res.Checks[max(i, 0)].Got)
			}
		})
	}
}

// TestPGOStackIsBuiltWithItsProfile proves the PGO step changes the build:
// the demo's build command for nethttp-pgx-pgo (stackbench.yaml, run in
// the stack's directory) compiles with the committed cpu.pgo, nethttp-pgx's
// without. It asks go build for its plan (-a -n) instead of building,
// which would recompile the standard library with the profile. The
// profile is not a default.pgo, which go test ./... would also compile
// the package with (see apps/nethttp-pgx-pgo/main.go).
func TestPGOStackIsBuiltWithItsProfile(t *testing.T) {
	f, err := plan.Load(filepath.Join("..", "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, wantPGO := range map[string]bool{"nethttp-pgx-pgo": true, "nethttp-pgx": false} {
		i := slices.IndexFunc(f.Stacks, func(s plan.Stack) bool { return s.Name == name })
		if i < 0 {
			t.Fatalf("stackbench.yaml has no stack %s", name)
		}
		build := f.Stacks[i].Build
		args, ok := strings.CutPrefix(build, "go build ")
		if !ok {
			t.Fatalf("%s: build %q; want a go build", name, build)
		}
		// The plan of the same build, writing nothing.
		fields := strings.Fields(args)
		if i := slices.Index(fields, "-o"); i >= 0 && i+1 < len(fields) {
			fields[i+1] = os.DevNull
		}
		cmd := exec.Command(goTool(), append([]string{"build", "-a", "-n"}, fields...)...)
		cmd.Dir = name
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %s -a -n in %s: %v\n%s", name, build, name, err, out)
		}
		hasPGO := strings.Contains(string(out), "-pgo="+filepath.Join(mustAbs(t, name), "cpu.pgo"))
		if hasPGO != wantPGO {
			t.Errorf("%s: %q builds with its cpu.pgo: %v, want %v", name, build, hasPGO, wantPGO)
		}
	}
	if _, err := os.Stat(filepath.Join("nethttp-pgx-pgo", "default.pgo")); err == nil {
		t.Error("apps/nethttp-pgx-pgo/default.pgo exists: go test ./... would build the package with it")
	}
}

// buildAll builds every main package under apps/ into a temporary directory
// with one go build, so the packages they share compile once. It builds
// without PGO: a profile changes how the compiler optimises, not what the
// code does, and a PGO build recompiles the standard library (a minute or
// more on a cold CI cache); stackbench parity and run check the PGO binary
// itself.
func buildAll(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goTool(), "build", "-pgo=off", "-o", dir+string(filepath.Separator), "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./... in apps: %v\n%s", err, out)
	}
	return dir
}

// goTool is the go command the tests run under (go test puts it first on PATH).
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// parity starts the stack's binary as the harness does, runs the workload's
// parity checks against it and fails the test with every finding.
func parity(t *testing.T, binary, name, workloadName string) workload.StackResult {
	t.Helper()
	w, ok := workload.Builtin(workloadName, testSecret)
	if !ok {
		t.Fatalf("no built-in workload %q", workloadName)
	}
	var databaseURL string
	switch {
	case workloadName == "tfb":
		databaseURL = pgtest.FreshFixtureDB(t, pgfix.TFBFixture())
	case w.NeedsDatabase:
		databaseURL = pgtest.FreshDB(t)
	}
	health := "/health"
	if w.Health != "" {
		health = w.Health
	}
	port, err := netutil.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		fmt.Sprintf("PORT=%d", port),
		"JWT_SECRET=" + testSecret,
		"NODE_ENV=production",
		"STACKBENCH_WORKLOAD=" + workloadName,
		"DATABASE_URL=" + databaseURL,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := proc.Start(ctx, proc.Spec{
		Name: name, Dir: mustAbs(t, name), Command: binary, Env: env, Port: port,
		HealthPath: health, LogPath: filepath.Join(t.TempDir(), "server.log"),
		BootTimeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Stop(5 * time.Second); err != nil {
			t.Errorf("stop %s: %v", name, err)
		}
	}()
	res := workload.RunChecks(ctx, w, fmt.Sprintf("http://127.0.0.1:%d", port), workload.RunOptions{
		Stack: name, Secret: testSecret, DatabaseURL: databaseURL,
	})
	if len(res.Checks) == 0 {
		t.Fatalf("%s: no parity check ran for workload %s", name, workloadName)
	}
	for _, f := range res.Failures() {
		t.Errorf("%s %s: %s\n  sent:     %s\n  expected: %s\n  got:      %s", f.Stack, f.Check, f.Problem, f.Sent, f.Expected, f.Got)
	}
	if err := p.Check(); err != nil {
		t.Errorf("%s after the checks: %v", name, err)
	}
	// A reference server logs nothing per request (no logger middleware, no
	// debug mode): anything it printed is a failure.
	switch out := p.LogTail(); {
	case strings.TrimSpace(logBody(out)) != "":
		t.Errorf("%s wrote to its output:\n%s", name, out)
	case t.Failed():
		t.Logf("server log:\n%s", out)
	}
	t.Logf("%s %s: %d of %d checks passed", name, workloadName, res.Passed(), len(res.Checks))
	return res
}

// logBody drops the supervisor's own "=== stackbench: start" line.
func logBody(log string) string {
	var keep []string
	for _, line := range strings.Split(log, "\n") {
		if !strings.HasPrefix(line, "=== stackbench:") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
