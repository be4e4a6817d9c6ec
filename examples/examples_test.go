// Package examples holds stacks written in other languages (see README.md).
// Its test keeps them correct: each Node.js example's stackbench.yaml must
// be valid, its stacks must build with the file's own commands, and they
// must pass the parity gate of both built-in workloads, each stack alone and
// against the others (the Go reference first), on a real, seeded
// PostgreSQL.
package examples

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/osutil"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/workload"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// nodeExamples are the example directories whose stack runs on Node.js.
var nodeExamples = []string{"express-pg", "fastify-pg"}

// testSecret is deliberately not the default, to prove JWT_SECRET is read.
const testSecret = "examples-test-secret"

func TestNodeExamplesPassParity(t *testing.T) {
	requireNode(t)
	goBins := goBuilds{dir: t.TempDir(), bins: map[string]string{}}
	for _, name := range nodeExamples {
		t.Run(name, func(t *testing.T) {
			stacks := exampleStacks(t, name)
			for i := range stacks {
				stacks[i] = build(t, stacks[i], &goBins)
			}
			for _, wl := range workload.Names() {
				t.Run(wl, func(t *testing.T) { gate(t, stacks, wl) })
			}
		})
	}
}

// requireNode skips the test when node or npm is missing, except in CI
// (CI set to anything), where the examples must be checked and their
// absence fails.
func requireNode(t *testing.T) {
	t.Helper()
	var missing []string
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("%s not on PATH: install Node.js 20 or later with npm to check the examples", strings.Join(missing, " and "))
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// exampleStacks loads examples/<name>/stackbench.yaml, which must be valid,
// free of warnings and include the example itself (dir: .) built with
// npm ci, and returns its stacks in step order.
func exampleStacks(t *testing.T, name string) []plan.Stack {
	t.Helper()
	dir, err := filepath.Abs(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatalf("%s/stackbench.yaml: %v", name, err)
	}
	for _, w := range f.Warnings {
		t.Errorf("%s/stackbench.yaml: warning: %v", name, w)
	}
	if f.Workload.Name != "saas-slice" {
		t.Errorf("%s/stackbench.yaml: workload %q, want saas-slice", name, f.Workload.Name)
	}
	if f.JWTSecret != workload.DefaultJWTSecret {
		t.Errorf("%s/stackbench.yaml: jwt_secret %q, want the default", name, f.JWTSecret)
	}
	for _, s := range f.Stacks {
		if s.Dir == dir {
			if !strings.HasPrefix(s.Build, "npm ci") {
				t.Errorf("stack %s builds with %q; want npm ci, which installs exactly the committed package-lock.json", s.Name, s.Build)
			}
			return f.Stacks
		}
	}
	t.Fatalf("%s/stackbench.yaml has no stack with dir: . (the example itself)", name)
	return nil
}

// buildTimeout bounds a build; npm ci may have to fill an empty npm cache.
const buildTimeout = 5 * time.Minute

// goBuilds are the Go stacks built by the test: binaries in dir, by stack dir.
type goBuilds struct {
	dir  string
	bins map[string]string
}

// build runs the stack's build command in its dir and returns the stack to
// start. A Go stack (the reference server under apps/) is built once into
// a temporary directory instead of its bin/, so that the test writes
// nothing into another package's tree.
func build(t *testing.T, s plan.Stack, gb *goBuilds) plan.Stack {
	t.Helper()
	command := s.Build
	if strings.HasPrefix(s.Build, "go build") {
		if bin, ok := gb.bins[s.Dir]; ok {
			s.Start = bin
			return s
		}
		bin := filepath.Join(gb.dir, s.Name)
		command, s.Start = "go build -o '"+bin+"' .", bin
		gb.bins[s.Dir] = bin
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = s.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build stack %s: %s in %s: %v\n%s", s.Name, command, s.Dir, err, out)
	}
	return s
}

// gate runs the workload's parity checks on every stack, each against its
// own fresh copy of the seeded database, and fails the test with every
// failure and warning of the gate's report.
func gate(t *testing.T, stacks []plan.Stack, workloadName string) {
	w, ok := workload.Builtin(workloadName, testSecret)
	if !ok {
		t.Fatalf("no built-in workload %q", workloadName)
	}
	var results []workload.StackResult
	for _, s := range stacks {
		dbURL := ""
		if w.NeedsDatabase {
			dbURL = pgtest.FreshDB(t)
		}
		r := checkStack(t, s, w, dbURL)
		if len(r.Checks) == 0 && r.Error == "" {
			t.Errorf("%s: no parity check ran for workload %s", s.Name, workloadName)
		}
		t.Logf("%s %s: %d of %d checks passed", s.Name, workloadName, r.Passed(), len(r.Checks)+r.NotRun)
		results = append(results, r)
	}
	rep := workload.NewReport(workloadName, results)
	if !rep.OK() || len(rep.Warnings) > 0 {
		var b strings.Builder
		rep.WriteText(&b)
		t.Errorf("parity gate, %d failures and %d warnings (an error status that differs between stacks):\n%s",
			len(rep.Failures), len(rep.Warnings), b.String())
	}
}

// checkStack starts the stack as the harness does, runs the checks and
// stops it; a stack that does not start or crashes is a failed result.
func checkStack(t *testing.T, s plan.Stack, w *workload.Workload, dbURL string) workload.StackResult {
	t.Helper()
	port, err := osutil.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		fmt.Sprintf("PORT=%d", port),
		"JWT_SECRET=" + testSecret,
		"NODE_ENV=production",
		"STACKBENCH_WORKLOAD=" + w.Name,
	}
	if dbURL != "" {
		env = append(env, "DATABASE_URL="+dbURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := proc.Start(ctx, proc.Spec{
		Name: s.Name, Dir: s.Dir, Command: s.Start, Env: env, Port: port,
		HealthPath: s.Health, LogPath: filepath.Join(t.TempDir(), s.Name+".log"),
		BootTimeout: 30 * time.Second,
	})
	if err != nil {
		return workload.StackFailure(s.Name, w.Name, err, "")
	}
	defer func() {
		if err := p.Stop(5 * time.Second); err != nil {
			t.Errorf("stop %s: %v", s.Name, err)
		}
	}()
	r := workload.RunChecks(ctx, w, fmt.Sprintf("http://127.0.0.1:%d", port), workload.RunOptions{
		Stack: s.Name, Secret: testSecret, DatabaseURL: dbURL, HealthPath: s.Health,
	})
	if err := p.Check(); err != nil && r.Error == "" {
		r.Error = fmt.Sprintf("crashed during the checks: %v", err)
	}
	if r.Error != "" {
		r.StderrTail = p.LogTail()
	} else if !r.OK() {
		t.Logf("%s's output:\n%s", s.Name, p.LogTail())
	}
	return r
}
