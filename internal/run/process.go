package run

import (
	"context"
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// processPhase measures the process suite of a file with a process:
// section (docs/process.md), after the dx phase, and journals its results
// (one journal.Process) before results.json is written.
type processPhase struct{ r *runner }

// run measures the suite unless the file has none or the journal (or,
// for a run of an older stackbench, journal.ProcessFile) already holds
// it.
func (ph *processPhase) run(ctx context.Context, done *journal.Results) error {
	r := ph.r
	if r.opt.File.Process == nil || done.Process != nil || exists(filepath.Join(r.opt.Dir, journal.ProcessFile)) {
		return nil
	}
	r.progress.logf("process phase: commands timed spawn → exit")
	res, err := Process(ctx, r.opt.File.Process, logsDir(r.opt.Dir), func(line string) { r.progress.logf("%s", line) })
	if err != nil {
		return fmt.Errorf("process phase: %w", err)
	}
	if err := r.jw.Append(journal.KindProcess, journal.Process{Time: time.Now().UTC(), Result: res}); err != nil {
		return fmt.Errorf("process phase: %w", err)
	}
	return nil
}

// Process prepares and runs the process suite of a file (the process
// phase of a run, and stackbench process), with its calls; logs go to
// logDir.
func Process(ctx context.Context, ps *plan.ProcessSuite, logDir string, progress func(string)) (spawn.Result, error) {
	if err := prepareProcess(ctx, ps, logDir, progress); err != nil {
		return spawn.Result{}, err
	}
	var cmds []spawn.Command
	for _, c := range ps.Commands {
		// One environment for all sizes: the suite adds STACKBENCH_SIZE itself.
		cmds = append(cmds, spawn.Command{Name: c.Name, Dir: c.Dir, Argv: c.Run, Env: commandEnv(c, 0)[1:]})
	}
	res, err := spawn.Run(ctx, cmds, spawn.Options{Sizes: ps.Sizes, Warmup: ps.Warmup, Rounds: ps.Rounds, Timeout: ps.Timeout, Progress: progress})
	if err != nil {
		return res, err
	}
	// The suite measures; analysis calls each command against the first.
	res.Calls = analysis.ProcessCalls(res)
	return res, nil
}

// prepareProcess runs every command's generate and build at every size,
// untimed, before the process suite measures anything.
func prepareProcess(ctx context.Context, ps *plan.ProcessSuite, logDir string, progress func(string)) error {
	for _, size := range ps.Sizes {
		for _, c := range ps.Commands {
			for _, step := range []struct{ name, command string }{{"generate", c.Generate}, {"build", c.Build}} {
				if step.command == "" {
					continue
				}
				command := sized(step.command, size)
				log := filepath.Join(logDir, fmt.Sprintf("%s-%d-%s.log", c.Name, size, step.name))
				os.Remove(log)
				progress(fmt.Sprintf("%s (size %d): %s", c.Name, size, step.name))
				if err := stack.Shell(ctx, c.Dir, command, log, commandEnv(c, size)); err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("%s of command %q at size %d (%s, in %s): %v\n%s", step.name, c.Name, size, command, c.Dir, err, fileutil.Tail(log, 0))
				}
			}
		}
	}
	return nil
}

// sized substitutes the size for {size}.
func sized(s string, size int) string {
	return strings.ReplaceAll(s, plan.SizePlaceholder, strconv.Itoa(size))
}

// commandEnv is a process-suite command's environment at one size.
func commandEnv(c plan.Command, size int) []string {
	env := []string{plan.SizeEnv + "=" + strconv.Itoa(size)}
	for _, k := range c.EnvOrder {
		env = append(env, k+"="+c.Env[k])
	}
	return env
}
