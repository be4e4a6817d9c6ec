package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/suite/dx"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// Files in which results directories written before the suites were
// journaled hold their results; a resume of such a run does not measure
// them again (the report reads them, report.DXFile and ProcessFile).
const (
	dxResultFile      = "dx.json"
	processResultFile = "process.json"
)

// dxDatabase begins the name of the database a reload's server uses, a
// fresh copy of the seeded template named stack.CopyName makes.
const dxDatabase = "stackbench_dx"

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

// dxTargets lists what the DX suite measures: each stack with a dx: key,
// then each process-suite command with one, at every size. harness is
// what a stack's reload server is given (its own database copy).
func dxTargets(f *plan.File, harness func(plan.Stack) stack.Harness) []dx.Target {
	var out []dx.Target
	for _, s := range f.Stacks {
		d := s.DX
		if d == nil {
			continue
		}
		var env []string
		for _, kv := range stack.Env(s, 0, harness(s)) {
			if !strings.HasPrefix(kv, "PORT=") {
				env = append(env, kv)
			}
		}
		t := dx.Target{Name: s.Name, Dir: s.Dir, Env: env, Install: d.Install, Build: s.Build, Cold: d.Cold,
			Artifact: d.Artifact, DepsDir: d.DepsDir, DepsCommand: d.DepsCommand, Rounds: d.Rounds}
		if r := d.Reload; r != nil {
			t.Reload = &dx.Reload{Start: r.Start, HealthPath: s.Health, Path: r.Path, BootTimeout: stack.BootTimeoutOf(s),
				File: r.File, Find: r.Find, Replace: r.Replace, Timeout: r.Timeout}
		}
		out = append(out, t)
	}
	if f.Process == nil {
		return out
	}
	for _, size := range f.Process.Sizes {
		for _, c := range f.Process.Commands {
			d := c.DX
			if d == nil {
				continue
			}
			t := dx.Target{Name: c.Name, Size: size, Dir: c.Dir, Env: commandEnv(c, size), Install: sized(d.Install, size),
				Generate: sized(c.Generate, size), Build: sized(c.Build, size), Artifact: sized(d.Artifact, size),
				DepsDir: sized(d.DepsDir, size), DepsCommand: d.DepsCommand, Rounds: d.Rounds}
			for _, dir := range d.Cold {
				t.Cold = append(t.Cold, sized(dir, size))
			}
			out = append(out, t)
		}
	}
	return out
}

// needsDatabase reports whether a reload starts a server of a workload
// that reads the database.
func needsDatabase(f *plan.File) bool {
	if !f.Workload.NeedsDatabase {
		return false
	}
	for _, s := range f.Stacks {
		if s.DX != nil && s.DX.Reload != nil {
			return true
		}
	}
	return false
}

// runDX runs the DX suite of a file, with a database for the reloads when
// they need one.
func runDX(ctx context.Context, f *plan.File, logDir string, progress func(string)) (dx.Result, error) {
	h := stack.Harness{Workload: f.Workload.Name, JWTSecret: f.JWTSecret}
	harness := map[string]stack.Harness{}
	if needsDatabase(f) {
		db, err := stack.OpenFileDatabase(ctx, f, logDir, progress)
		if err != nil {
			return dx.Result{}, err
		}
		defer func() {
			if cerr := db.Close(true); cerr != nil {
				progress("warning: removing the DX database: " + cerr.Error())
			}
		}()
		if !plan.OwnDatabases(f.Stacks) {
			if h.DatabaseURL, err = db.Fresh(ctx, stack.CopyName(dxDatabase)); err != nil {
				return dx.Result{}, err
			}
		}
		// A stack with a database of its own gets a copy of its own.
		for _, s := range f.Stacks {
			if s.Database == nil || s.DX == nil {
				continue
			}
			own := h
			if own.DatabaseURL, err = db.FreshFor(ctx, s, stack.CopyName(dxDatabase)); err != nil {
				return dx.Result{}, err
			}
			harness[s.Name] = own
		}
	}
	return dx.Run(ctx, dxTargets(f, func(s plan.Stack) stack.Harness {
		if own, ok := harness[s.Name]; ok {
			return own
		}
		return h
	}), dx.Options{LogDir: logDir, Progress: progress})
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

// runProcess prepares and runs the process suite of a file.
func runProcess(ctx context.Context, ps *plan.ProcessSuite, logDir string, progress func(string)) (spawn.Result, error) {
	if err := prepareProcess(ctx, ps, logDir, progress); err != nil {
		return spawn.Result{}, err
	}
	var cmds []spawn.Command
	for _, c := range ps.Commands {
		// One environment for all sizes: the suite adds STACKBENCH_SIZE itself.
		cmds = append(cmds, spawn.Command{Name: c.Name, Dir: c.Dir, Argv: c.Run, Env: commandEnv(c, 0)[1:]})
	}
	return spawn.Run(ctx, cmds, spawn.Options{Sizes: ps.Sizes, Warmup: ps.Warmup, Rounds: ps.Rounds, Timeout: ps.Timeout, Progress: progress})
}

// runSuitePhases is the dx and process phases of `stackbench run`, after
// the windows: each runs when the file asks for it and the journal has no
// record of it yet (a resumed run keeps what it has), and appends its
// results to the journal. A failure is reported and does not lose the
// run's windows.
func runSuitePhases(ctx context.Context, env Env, f *plan.File, dir string) error {
	if !f.HasDX() && f.Process == nil {
		return nil
	}
	progress := func(line string) { fmt.Fprintln(env.Stderr, line) }
	logDir := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	done, err := journal.ReadDir(dir)
	if err != nil {
		return err
	}
	if f.HasDX() && done.DX == nil && !exists(filepath.Join(dir, dxResultFile)) {
		progress("dx phase: install, build, artifact, dependencies, reload")
		res, err := runDX(ctx, f, logDir, progress)
		if err != nil {
			return fmt.Errorf("dx phase: %w", err)
		}
		if err := appendRecord(dir, journal.KindDX, journal.DX{Time: time.Now().UTC(), DXResult: journal.DXResultOf(res)}); err != nil {
			return fmt.Errorf("dx phase: %w", err)
		}
	}
	if f.Process != nil && done.Process == nil && !exists(filepath.Join(dir, processResultFile)) {
		progress("process phase: commands timed spawn → exit")
		res, err := runProcess(ctx, f.Process, logDir, progress)
		if err != nil {
			return fmt.Errorf("process phase: %w", err)
		}
		if err := appendRecord(dir, journal.KindProcess, journal.Process{Time: time.Now().UTC(), ProcessResult: journal.ProcessResultOf(res)}); err != nil {
			return fmt.Errorf("process phase: %w", err)
		}
	}
	return nil
}

// appendRecord appends one record to the journal of a results directory
// whose run has ended (nothing else writes to it).
func appendRecord(dir string, kind journal.Kind, rec any) error {
	w, _, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		return err
	}
	if err := w.Append(kind, rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
