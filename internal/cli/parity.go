package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

func init() {
	register(Command{Name: "parity", Short: "check that every stack answers the workload's contract alike", Order: 30, Run: runParity})
}

const paritySynopsis = "[-f FILE] [--stacks a,b] [-o text|json] [--logs DIR]"

func runParity(ctx context.Context, args []string, env Env) error {
	pro := newPrologue("parity", paritySynopsis, "comparison file; its stacks are checked in step order", "output: text or json", env)
	fs := pro.fs
	only := stacksFlag(fs, "check only these stacks")
	logs := fs.String("logs", "", "keep build and server logs in this directory (default: a temporary one, kept only when a check fails)")
	if err := pro.parse(args); err != nil {
		return err
	}
	var stacks []plan.Stack
	f, err := pro.comparison(func(f *plan.File) (err error) {
		stacks, err = selectStacks(f, *only)
		return err
	})
	if err != nil {
		return err
	}
	logDir, keepLogs := *logs, *logs != ""
	if keepLogs {
		logDir = resolvePath(env, logDir)
		err = os.MkdirAll(logDir, 0o755)
	} else {
		logDir, err = os.MkdirTemp("", "stackbench-parity-")
	}
	if err != nil {
		return fmt.Errorf("make the log directory: %w", err)
	}

	rep, err := checkParity(ctx, f, stacks, logDir, env.Stderr)
	if err != nil {
		if !keepLogs {
			os.RemoveAll(logDir)
		}
		return err
	}
	if pro.json() {
		err = rep.WriteJSON(env.Stdout)
	} else {
		err = rep.WriteText(env.Stdout)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		fmt.Fprintf(env.Stderr, "stackbench parity: build and server logs are in %s\n", logDir)
		return &ExitError{Code: ExitGateFailed}
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
			return nil, usagef("%s has no stack %q; it has %s", f.Name, name, strings.Join(f.StackNames(), ", "))
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

// checkParity builds each stack, then runs the parity gate on them (see
// stack.Parity). A stack that does not build is a failure in the report;
// errors are for the harness itself (no database).
func checkParity(ctx context.Context, f *plan.File, stacks []plan.Stack, logDir string, progress io.Writer) (workload.Report, error) {
	say := func(line string) { fmt.Fprintln(progress, line) }
	// Stacks with git: run from worktrees of their commits, kept where a
	// run from this directory keeps them (results/).
	stacks, err := stack.CheckoutAll(ctx, stacks, "", say)
	if err != nil {
		return workload.Report{}, err
	}
	var built []plan.Stack
	buildFailed := map[string]workload.StackResult{}
	for _, s := range stacks {
		if s.Build != "" {
			say(fmt.Sprintf("parity: build %s: %s", s.Name, s.Build))
		}
		if err := stack.Build(ctx, s, filepath.Join(logDir, s.Name+".build.log")); err != nil {
			if ctx.Err() != nil {
				return workload.Report{}, ctx.Err()
			}
			buildFailed[s.Name] = workload.StackFailure(s.Name, f.Workload.Name, err, "")
			continue
		}
		built = append(built, s)
	}
	var db *stack.Database
	if f.Workload.NeedsDatabase && len(built) > 0 {
		var err error
		if db, err = stack.OpenStacksDatabase(ctx, f.Database, pgfix.Options{}, stack.Fixture(f.Workload.Name, f.Fixture, logDir), built, logDir, say); err != nil {
			return workload.Report{}, err
		}
		defer func() {
			if err := db.Close(true); err != nil {
				say("warning: removing the parity databases: " + err.Error())
			}
		}()
	}
	checked, err := stack.Parity(ctx, built, stack.ParityOptions{
		Workload: f.Workload, JWTSecret: f.JWTSecret, Database: db, LogDir: logDir, Progress: say, Scenario: f.Scenario,
	})
	if err != nil {
		return workload.Report{}, err
	}
	// Results in step order, failed builds among the checked stacks.
	results := make([]workload.StackResult, 0, len(stacks))
	for _, s := range stacks {
		if r, ok := buildFailed[s.Name]; ok {
			results = append(results, r)
			continue
		}
		results = append(results, checked[0])
		checked = checked[1:]
	}
	return workload.NewReport(f.Workload.Name, results), nil
}
