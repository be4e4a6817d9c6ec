package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/suite/dx"
)

// dxPhase measures the developer-experience suite of a file with a dx:
// key (docs/dx.md), after the windows, and journals its results (one
// journal.DX) before results.json is written.
type dxPhase struct{ r *runner }

// run measures the suite unless the file asks for none or the journal
// (or, for a run of an older stackbench, journal.DXFile) already holds
// it.
func (ph *dxPhase) run(ctx context.Context, done *journal.Results) error {
	r := ph.r
	if !r.opt.File.HasDX() || done.DX != nil || exists(filepath.Join(r.opt.Dir, journal.DXFile)) {
		return nil
	}
	r.progress.logf("dx phase: install, build, artifact, dependencies, reload")
	res, err := DX(ctx, r.opt.File, logsDir(r.opt.Dir), func(line string) { r.progress.logf("%s", line) })
	if err != nil {
		return fmt.Errorf("dx phase: %w", err)
	}
	if err := r.jw.Append(journal.KindDX, journal.DX{Time: time.Now().UTC(), Result: res}); err != nil {
		return fmt.Errorf("dx phase: %w", err)
	}
	return nil
}

// dxDatabase begins the name of the database a reload's server uses, a
// fresh copy of the seeded template named stack.CopyName makes.
const dxDatabase = "stackbench_dx"

// DX runs the DX suite of a file (the dx phase of a run, and stackbench
// dx), with a database of its own for the reloads when they need one;
// logs go to logDir.
func DX(ctx context.Context, f *plan.File, logDir string, progress func(string)) (dx.Result, error) {
	h := stack.Harness{Workload: f.Workload.Name, JWTSecret: f.JWTSecret}
	harness := map[string]stack.Harness{}
	if dxNeedsDatabase(f) {
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

// dxNeedsDatabase reports whether a reload starts a server of a workload
// that reads the database.
func dxNeedsDatabase(f *plan.File) bool {
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

// exists reports whether path names a file.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
