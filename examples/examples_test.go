// Package examples holds stacks written in other languages (see README.md).
// Its tests keep them correct: each example's stackbench.yaml must be
// valid, each example must install from a committed lockfile or a named
// install step, its stacks must build with the file's own commands, and
// they must pass the parity gate of their workloads, each stack alone and
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
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// example is a directory of this package with its own stackbench.yaml.
type example struct {
	name string
	// needs are the tools its stacks need beyond Go: node (Node.js and npm;
	// Bun comes from the example's own npm packages) and python (Debian's
	// Python packages that the example's install.sh names).
	needs []string
	// workloads are the built-in workloads whose parity gate it must pass.
	workloads []string
}

// examples are every example directory; TestEveryExampleIsChecked keeps the
// list complete.
var examples = []example{
	{name: "express-pg", needs: []string{"node"}, workloads: []string{"saas-slice", "micro"}},
	{name: "fastify-pg", needs: []string{"node"}, workloads: []string{"saas-slice", "micro"}},
	{name: "nest-bun-elysia", needs: []string{"node"}, workloads: []string{"saas-slice"}},
	{name: "django-elysia", needs: []string{"node", "python"}, workloads: []string{"saas-slice"}},
	{name: "nest-adapters-bun", needs: []string{"node"}, workloads: []string{"micro"}},
}

// testSecret is deliberately not the default, to prove JWT_SECRET is read.
const testSecret = "examples-test-secret"

func TestExamplesPassParity(t *testing.T) {
	goBins := goBuilds{dir: t.TempDir(), bins: map[string]string{}}
	built := map[string]bool{}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			for _, need := range ex.needs {
				require(t, need)
			}
			stacks := exampleStacks(t, ex)
			for i := range stacks {
				stacks[i] = build(t, stacks[i], &goBins, built)
			}
			for _, wl := range ex.workloads {
				t.Run(wl, func(t *testing.T) { gate(t, stacks, wl) })
			}
		})
	}
}

// require skips the test when a tool the example needs is missing, except in
// CI (CI set to anything), where the examples must be checked and its
// absence fails.
func require(t *testing.T, need string) {
	t.Helper()
	var msg string
	switch need {
	case "node":
		var missing []string
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				missing = append(missing, tool)
			}
		}
		if len(missing) > 0 {
			msg = fmt.Sprintf("%s not on PATH: install Node.js 20.11 or later with npm to check the examples", strings.Join(missing, " and "))
		}
	case "python":
		// Debian's python3, whatever python3 comes first on PATH.
		cmd := exec.Command("/usr/bin/python3", "-c", "import django, gunicorn, uvicorn, uvloop, httptools, psycopg2, jwt")
		if out, err := cmd.CombinedOutput(); err != nil {
			msg = fmt.Sprintf("Debian's Python packages are missing (%v: %s): run sh examples/django-elysia/install.sh as root",
				err, strings.TrimSpace(string(out)))
		}
	default:
		t.Fatalf("unknown need %q", need)
	}
	if msg == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// exampleStacks loads examples/<name>/stackbench.yaml, which must be valid,
// free of warnings, on the example's first workload with the default
// secret, and include the example itself (dir: .), and returns its stacks
// in step order.
func exampleStacks(t *testing.T, ex example) []plan.Stack {
	t.Helper()
	dir, err := filepath.Abs(ex.name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatalf("%s/stackbench.yaml: %v", ex.name, err)
	}
	for _, w := range f.Warnings {
		t.Errorf("%s/stackbench.yaml: warning: %v", ex.name, w)
	}
	if f.Workload.Name != ex.workloads[0] {
		t.Errorf("%s/stackbench.yaml: workload %q, want %s", ex.name, f.Workload.Name, ex.workloads[0])
	}
	if f.JWTSecret != workload.DefaultJWTSecret {
		t.Errorf("%s/stackbench.yaml: jwt_secret %q, want the default", ex.name, f.JWTSecret)
	}
	reference := filepath.Join(filepath.Dir(filepath.Dir(dir)), "apps", "nethttp-pgx")
	if f.Stacks[0].Dir != reference {
		t.Errorf("%s/stackbench.yaml: the first stack is %s in %s; want the Go reference server in %s, whose bodies parity holds the others to",
			ex.name, f.Stacks[0].Name, f.Stacks[0].Dir, reference)
	}
	for _, s := range f.Stacks {
		if s.Dir == dir {
			return f.Stacks
		}
	}
	t.Fatalf("%s/stackbench.yaml has no stack with dir: . (the example itself)", ex.name)
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
func build(t *testing.T, s plan.Stack, gb *goBuilds, built map[string]bool) plan.Stack {
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
	// Stacks of one directory share its build (npm ci and npm run build):
	// once per directory and command is enough.
	key := s.Dir + "\x00" + command
	if built[key] {
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = s.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build stack %s: %s in %s: %v\n%s", s.Name, command, s.Dir, err, out)
	}
	built[key] = true
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
	// The harness's own variables, then the stack's env from the file
	// (DB_DRIVER, NEST_ADAPTER, ...), exactly as stackbench run starts it.
	env := stack.Env(s, port, stack.Harness{Workload: w.Name, JWTSecret: testSecret, DatabaseURL: dbURL})
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
