package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/workload"
)

func init() {
	register(Command{Name: "parity", Short: "check that every stack answers the workload's contract alike", Order: 30, Run: runParity})
}

const paritySynopsis = "[-f FILE] [--stack NAME]... [-o text|json] [--logs DIR]"

// Parity's limits on each stack.
const (
	parityBootTimeout = 60 * time.Second
	parityStopGrace   = 5 * time.Second
	// parityLogTail is how much of a failed stack's output the report quotes.
	parityLogTail = 4000
)

func runParity(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("parity", paritySynopsis, env)
	file := fs.String("f", "stackbench.yaml", "comparison file; its stacks are checked in step order")
	var only stringList
	fs.Var(&only, "stack", "check only this stack (repeatable)")
	output := fs.String("o", "text", "output: text or json")
	logs := fs.String("logs", "", "keep build and server logs in this directory (default: a temporary one, kept only when a check fails)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q; name the file with -f", rest[0])
	}
	if *output != "text" && *output != "json" {
		return usagef("-o %s: write -o text or -o json", *output)
	}
	f, err := loadComparison(env, *file)
	if err != nil {
		return err
	}
	stacks, err := selectStacks(f, only)
	if err != nil {
		return err
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	logDir, keepLogs := *logs, *logs != ""
	if keepLogs {
		logDir = absPath(env, logDir)
		err = os.MkdirAll(logDir, 0o755)
	} else {
		logDir, err = os.MkdirTemp("", "stackbench-parity-")
	}
	if err != nil {
		return fmt.Errorf("make the log directory: %w", err)
	}

	rep, err := checkParity(ctx, f, stacks, logDir, env.Stderr)
	if err != nil {
		return err
	}
	if *output == "json" {
		err = rep.WriteJSON(env.Stdout)
	} else {
		err = rep.WriteText(env.Stdout)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		fmt.Fprintf(env.Stderr, "stackbench parity: build and server logs are in %s\n", logDir)
		return &ExitError{Code: 1}
	}
	if !keepLogs {
		if err := os.RemoveAll(logDir); err != nil {
			fmt.Fprintf(env.Stderr, "warning: removing the logs: %v\n", err)
		}
	}
	return nil
}

// selectStacks returns the file's stacks named by only (all when empty), in
// step order.
func selectStacks(f *plan.File, only []string) ([]plan.Stack, error) {
	if len(only) == 0 {
		return f.Stacks, nil
	}
	for _, name := range only {
		if _, ok := f.Stack(name); !ok {
			return nil, usagef("--stack %s: %s has no such stack; it has %s", name, f.Name, strings.Join(f.StackNames(), ", "))
		}
	}
	var out []plan.Stack
	for _, s := range f.Stacks {
		if slices.Contains(only, s.Name) {
			out = append(out, s)
		}
	}
	return out, nil
}

// checkParity builds each stack, starts it against a fresh copy of the
// seeded database, runs the contract checks, stops it, and compares the
// stacks. A stack that does not build, start or keep answering is a failure
// in the report, not an error; errors are for the harness itself (no
// database).
func checkParity(ctx context.Context, f *plan.File, stacks []plan.Stack, logDir string, progress io.Writer) (workload.Report, error) {
	var adminURL string
	if f.Workload.NeedsDatabase {
		url, stop, err := parityDatabase(ctx, f.Database, logDir, progress)
		if err != nil {
			return workload.Report{}, err
		}
		defer stop()
		adminURL = url
	}
	var results []workload.StackResult
	for i, s := range stacks {
		t0 := time.Now()
		r := checkStack(ctx, f, s, adminURL, fmt.Sprintf("stackbench_parity_%d", i), logDir, progress)
		if len(r.Checks) == 0 && r.Error != "" {
			fmt.Fprintf(progress, "parity: %s: failed before the first check\n", s.Name)
		} else {
			fmt.Fprintf(progress, "parity: %s: %d/%d checks passed in %.1fs\n", s.Name, r.Passed(), len(r.Checks)+r.NotRun, time.Since(t0).Seconds())
		}
		results = append(results, r)
		if ctx.Err() != nil {
			return workload.Report{}, ctx.Err()
		}
	}
	return workload.NewReport(f.Workload.Name, results), nil
}

// parityDatabase returns the admin URL of a server with the seeded template:
// a throwaway embedded cluster (stopped and removed by stop) or the user's.
func parityDatabase(ctx context.Context, database, logDir string, progress io.Writer) (adminURL string, stop func(), err error) {
	stop = func() {}
	adminURL = database
	if database == plan.Embedded {
		fmt.Fprintln(progress, "parity: starting an embedded PostgreSQL cluster")
		c, err := pgfix.Start(ctx, pgfix.Options{})
		if err != nil {
			return "", nil, fmt.Errorf("embedded database: %w", err)
		}
		stop = func() {
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := c.Destroy(sctx); err != nil {
				fmt.Fprintf(progress, "warning: removing the embedded database: %v\n", err)
			}
		}
		adminURL = c.AdminURL()
	}
	if _, err := pgfix.EnsureTemplate(ctx, adminURL); err != nil {
		stop()
		return "", nil, fmt.Errorf("seed the template database: %w", err)
	}
	return adminURL, stop, nil
}

// checkStack runs the checks against one stack and always stops it.
func checkStack(ctx context.Context, f *plan.File, s plan.Stack, adminURL, dbName, logDir string, progress io.Writer) workload.StackResult {
	fail := func(err error, tail string) workload.StackResult {
		return workload.StackFailure(s.Name, f.Workload.Name, err, tail)
	}
	if s.Build != "" {
		fmt.Fprintf(progress, "parity: build %s: %s\n", s.Name, s.Build)
		logPath := filepath.Join(logDir, s.Name+".build.log")
		if err := shellTo(ctx, s.Dir, s.Build, logPath); err != nil {
			return fail(fmt.Errorf("build failed (%s, in %s): %v", s.Build, s.Dir, err), fileTail(logPath, parityLogTail))
		}
	}
	var dbURL string
	if adminURL != "" {
		url, err := pgfix.FreshDatabase(ctx, adminURL, dbName)
		if err != nil {
			return fail(fmt.Errorf("copy the seeded database for it: %w", err), "")
		}
		defer pgfix.DropDatabase(context.WithoutCancel(ctx), adminURL, dbName)
		dbURL = url
	}
	port, err := proc.FreePort()
	if err != nil {
		return fail(fmt.Errorf("find a free port: %w", err), "")
	}
	p, err := proc.Start(ctx, proc.Spec{
		Name: s.Name, Dir: s.Dir, Command: s.Start, Port: port, HealthPath: s.Health,
		Env:         stackEnv(f, s, port, dbURL),
		LogPath:     filepath.Join(logDir, s.Name+".log"),
		BootTimeout: parityBootTimeout,
	})
	if err != nil {
		// proc's error already quotes the end of the stack's output.
		return fail(fmt.Errorf("did not start: %w", err), "")
	}
	r := workload.RunChecks(ctx, f.Workload, fmt.Sprintf("http://127.0.0.1:%d", port), workload.RunOptions{
		Stack: s.Name, Secret: f.JWTSecret, DatabaseURL: dbURL, HealthPath: s.Health,
	})
	if err := p.Check(); err != nil && r.Error == "" {
		r.Error = fmt.Sprintf("crashed during the checks: %v", err)
	}
	if r.Error != "" {
		r.StderrTail = p.LogTail(parityLogTail)
	}
	if err := p.Stop(parityStopGrace); err != nil {
		fmt.Fprintf(progress, "warning: stopping %s: %v\n", s.Name, err)
	}
	return r
}

// stackEnv is what the harness gives a stack: PORT, DATABASE_URL,
// JWT_SECRET, NODE_ENV and STACKBENCH_WORKLOAD, then the stack's own env in
// file order (which wins).
func stackEnv(f *plan.File, s plan.Stack, port int, dbURL string) []string {
	env := []string{
		fmt.Sprintf("PORT=%d", port),
		"JWT_SECRET=" + f.JWTSecret,
		"NODE_ENV=production",
		"STACKBENCH_WORKLOAD=" + f.Workload.Name,
	}
	if dbURL != "" {
		env = append(env, "DATABASE_URL="+dbURL)
	}
	for _, k := range s.EnvOrder {
		env = append(env, k+"="+s.Env[k])
	}
	return env
}

// shellTo runs command with /bin/sh -c in dir, its output appended to
// logPath; cancelling ctx kills its whole process group.
func shellTo(ctx context.Context, dir, command, logPath string) error {
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd.Run()
}

// fileTail returns about the last maxBytes of a file, from a line start.
func fileTail(path string, maxBytes int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if len(b) > maxBytes {
		b = b[len(b)-maxBytes:]
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimRight(string(b), "\n")
}
