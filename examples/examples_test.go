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
	"sync"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stackbench-examples-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	os.Exit(pgtest.Run(m, func() { os.RemoveAll(dir) }))
}

// example is a directory of this package with its own stackbench.yaml.
type example struct {
	name string
	// needs are the tools its stacks need beyond Go: node (Node.js and npm;
	// Bun comes from the example's own npm packages), python (Debian's
	// Python packages that django-elysia's install.sh names) and psycopg2
	// (Debian's python3-psycopg2 alone).
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
	{name: "tfb", needs: []string{"node", "psycopg2"}, workloads: []string{"tfb"}},
}

// testSecret is deliberately not the default, to prove JWT_SECRET is read.
const testSecret = "examples-test-secret"

// The examples are checked side by side (their installs and builds wait
// on the network and the disk as much as on a CPU), and beside
// TestWireExample's short run, which judges nothing by time (the checks'
// databases are fresh copies of their own). TestBlogExample runs alone: it
// holds every window valid, and beside the installs and builds the
// host-speed probe would find the host slow (flag host_slow). Each stack's
// directory and build command runs once, whichever example asks first.
func TestExamplesPassParity(t *testing.T) {
	t.Parallel()
	b := &builds{dir: t.TempDir(), runs: map[string]*buildRun{}}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			for _, need := range ex.needs {
				require(t, need)
			}
			stacks := exampleStacks(t, ex)
			for i := range stacks {
				stacks[i] = b.build(t, stacks[i])
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
	case "psycopg2":
		// Debian's psycopg2 alone (the tfb example's Python stack).
		cmd := exec.Command("/usr/bin/python3", "-c", "import psycopg2")
		if out, err := cmd.CombinedOutput(); err != nil {
			msg = fmt.Sprintf("Debian's python3-psycopg2 is missing (%v: %s): run sh examples/tfb/python-psycopg/install.sh as root",
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
	if f.Workload.Name == "tfb" {
		reference = filepath.Join(filepath.Dir(filepath.Dir(dir)), "apps", "tfb-nethttp-pgx")
	}
	if f.Stacks[0].Dir != reference {
		t.Errorf("%s/stackbench.yaml: the first stack is %s in %s; want the Go reference server in %s, whose bodies parity holds the others to",
			ex.name, f.Stacks[0].Name, f.Stacks[0].Dir, reference)
	}
	for _, s := range f.Stacks {
		if s.Dir == dir || strings.HasPrefix(s.Dir, dir+string(filepath.Separator)) {
			return f.Stacks
		}
	}
	t.Fatalf("%s/stackbench.yaml has no stack in the example's directory (dir: . or below)", ex.name)
	return nil
}

// buildTimeout bounds a build; npm ci may have to fill an empty npm cache.
const buildTimeout = 5 * time.Minute

// builds are the builds the test ran, by directory and command, each run
// once however many examples' stacks share it; Go stacks (the reference
// server under apps/) are built into dir instead of their bin/, so that
// the test writes nothing into another package's tree.
type builds struct {
	dir  string
	mu   sync.Mutex
	runs map[string]*buildRun
}

// buildRun is one build: the command, run once, and how it went.
type buildRun struct {
	once    sync.Once
	command string
	bin     string // a Go stack's binary; "" for the others
	out     []byte
	err     error
}

// build runs the stack's build command in its dir, or waits for the
// example that runs it, and returns the stack to start.
func (b *builds) build(t *testing.T, s plan.Stack) plan.Stack {
	t.Helper()
	key, command, bin := s.Dir+"\x00"+s.Build, s.Build, ""
	if strings.HasPrefix(s.Build, "go build") {
		key = s.Dir + "\x00go"
	}
	b.mu.Lock()
	r := b.runs[key]
	if r == nil {
		if strings.HasPrefix(s.Build, "go build") {
			bin = filepath.Join(b.dir, s.Name)
			command = "go build -o '" + bin + "' ."
		}
		r = &buildRun{command: command, bin: bin}
		b.runs[key] = r
	}
	b.mu.Unlock()
	r.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", r.command)
		cmd.Dir = s.Dir
		r.out, r.err = cmd.CombinedOutput()
	})
	if r.err != nil {
		t.Fatalf("build stack %s: %s in %s: %v\n%s", s.Name, r.command, s.Dir, r.err, r.out)
	}
	if r.bin != "" {
		s.Start = r.bin
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
		switch {
		case w.Name == "tfb":
			dbURL = pgtest.FreshFixtureDB(t, pgfix.TFBFixture())
		case w.NeedsDatabase:
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
	port, err := netutil.FreePort()
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
