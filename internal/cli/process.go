package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

func init() {
	register(Command{Name: "process", Short: "process cost: commands timed spawn → exit over sizes", Order: 46, Run: runProcessCommand})
}

const processSynopsis = "[-f FILE] [-o text|json]"

func runProcessCommand(ctx context.Context, args []string, env Env) error {
	pro := newPrologue("process", processSynopsis, "comparison file with a process: section", "output: text or json", env)
	if err := pro.parse(args); err != nil {
		return err
	}
	f, err := pro.comparison(nil)
	if err != nil {
		return err
	}
	if f.Process == nil {
		return usagef("%s has no process: section; add one (see docs/process.md)", f.Name)
	}
	return runSuite(pro, env, "process", func(logDir string, log func(string)) (spawn.Result, error) {
		return run.Process(ctx, f.Process, logDir, log)
	}, func(w io.Writer, r spawn.Result) { report.WriteText(w, report.ProcessModel(r)) }, "a command failed (exit status or timeout); its cell has no figures")
}

// runSuite runs a suite (dx, process) with a temporary log directory,
// kept and named when the suite cannot run, and writes its result as JSON
// or as text; a measurement that failed is exit status 1 with failMsg.
func runSuite[R interface{ Failed() bool }](pro *prologue, env Env, name string, run func(logDir string, log func(string)) (R, error), print func(io.Writer, R), failMsg string) error {
	logDir, err := os.MkdirTemp("", "stackbench-"+name+"-")
	if err != nil {
		return err
	}
	res, err := run(logDir, func(line string) { fmt.Fprintln(env.Stderr, line) })
	if err != nil {
		return fmt.Errorf("%w\nthe logs are in %s", err, logDir)
	}
	os.RemoveAll(logDir)
	if pro.json() {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		print(env.Stdout, res)
	}
	if res.Failed() {
		return &ExitError{Code: ExitGateFailed, Msg: failMsg}
	}
	return nil
}
