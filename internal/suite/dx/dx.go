// Package dx is the developer-experience suite: how long a stack takes to
// install its dependencies and to build, cold (from emptied cache and
// dependency directories the stack names) and warm; how large its build
// artifact is; what its dependency tree weighs and how many packages it
// holds; and how long a one-line edit takes to reach a watch-mode server.
//
// Each target (a stack, or a process-suite command at one size) is
// measured in rounds; each round visits the targets in an order rotated by
// one, as the boot suite does, so that no target always goes first. Run
// returns plain data; the command prints it and the report renders it.
//
// A reload edits a file of the user's tree. The edit is always undone: the
// original bytes are written back atomically (a temporary file renamed over
// it) by a deferred restore, which runs on success, on an error, on a
// cancelled context (Ctrl-C or SIGTERM cancel it, see cmd/stackbench) and
// on a panic. Only SIGKILL can leave the edit in place; the next run then
// refuses to start and says how to restore the file.
package dx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Target is one thing the suite measures.
type Target struct {
	Name string
	// Size is the process suite's size parameter for a command; 0 for a stack.
	Size int
	Dir  string
	// Env is added to the harness's environment for every command.
	Env []string
	// Install, Generate and Build are shell commands run in Dir; any may be
	// empty.
	Install, Generate, Build string
	// Cold are directories removed before every cold pass.
	Cold []string
	// Artifact is a file or directory to weigh after the build.
	Artifact string
	// DepsDir or DepsCommand say where the dependencies are (see Deps).
	DepsDir, DepsCommand string
	// Reload, when set, is a watch-mode server to edit.
	Reload *Reload
	// Rounds is the number of passes.
	Rounds int
}

// Reload is a watch-mode start and a one-line edit.
type Reload struct {
	// Start runs in the target's Dir with PORT set; HealthPath is polled
	// until the first 200, then Path until its answer changes after the edit.
	Start       string
	HealthPath  string
	Path        string
	BootTimeout time.Duration
	// File gets Replace written in place of the first Find.
	File, Find, Replace string
	// Timeout bounds the wait for the changed answer.
	Timeout time.Duration
}

// Options configures Run.
type Options struct {
	// LogDir receives one log per target and step.
	LogDir string
	// Progress, when set, receives a line per measurement.
	Progress func(line string)
}

// Result is the whole suite.
type Result struct {
	Targets []TargetResult `json:"targets"`
}

// TargetResult is one target's figures; a step that was not asked is nil.
type TargetResult struct {
	Name string `json:"name"`
	Size int    `json:"size,omitempty"`
	// Install, Generate and Build are the timed steps.
	Install  *Timing `json:"install,omitempty"`
	Generate *Timing `json:"generate,omitempty"`
	Build    *Timing `json:"build,omitempty"`
	// ArtifactBytes is the artifact's size after the last build (files and
	// directories, as du -sb counts them); ArtifactFiles the regular files in it.
	ArtifactBytes int64 `json:"artifact_bytes,omitempty"`
	ArtifactFiles int   `json:"artifact_files,omitempty"`
	Deps          *Deps `json:"deps,omitempty"`
	// Reload is write → changed answer, over Rounds edits.
	Reload *Spread `json:"reload_ns,omitempty"`
	// Error says why the target failed; its figures are then partial.
	Error string `json:"error,omitempty"`
}

// Timing is a step's cold and warm durations. Cold is nil when the target
// names no cold directories.
type Timing struct {
	Cold *Spread `json:"cold_ns,omitempty"`
	Warm *Spread `json:"warm_ns"`
}

// Failed reports whether any target failed.
func (r Result) Failed() bool {
	for _, t := range r.Targets {
		if t.Error != "" {
			return true
		}
	}
	return false
}

// Run measures every target. A target whose step fails keeps the figures
// it has and an Error; the others go on. A cancelled context stops the
// suite at once (with every edit undone) and returns ctx.Err().
func Run(ctx context.Context, targets []Target, opt Options) (Result, error) {
	if opt.LogDir == "" {
		dir, err := os.MkdirTemp("", "stackbench-dx-")
		if err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(dir)
		opt.LogDir = dir
	}
	acc := make([]accumulator, len(targets))
	rounds := 0
	for _, t := range targets {
		rounds = max(rounds, t.Rounds)
	}
	for r := range rounds {
		for i := range targets {
			k := (r + i) % len(targets)
			t := targets[k]
			if r >= max(t.Rounds, 1) || acc[k].err != "" {
				continue
			}
			acc[k].round(ctx, t, r, opt)
			if ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
		}
	}
	var res Result
	for i, t := range targets {
		tr := acc[i].result(t)
		if tr.Error == "" {
			measureSizes(ctx, t, &tr)
		}
		res.Targets = append(res.Targets, tr)
	}
	return res, ctx.Err()
}

// measureSizes weighs the artifact and the dependencies after the last build.
func measureSizes(ctx context.Context, t Target, tr *TargetResult) {
	if t.Artifact != "" {
		u, err := DiskUsage(t.Artifact)
		if err != nil {
			tr.Error = fmt.Sprintf("artifact: %v", err)
			return
		}
		tr.ArtifactBytes, tr.ArtifactFiles = u.Bytes, u.Files
	}
	var err error
	switch {
	case t.DepsDir != "":
		tr.Deps, err = NodeModules(t.DepsDir)
	case t.DepsCommand != "":
		tr.Deps, err = GoModules(ctx, t.Dir, t.DepsCommand, t.Env)
	}
	if err != nil {
		tr.Error = fmt.Sprintf("deps: %v", err)
	}
}

func (opt Options) progress(format string, a ...any) {
	if opt.Progress != nil {
		opt.Progress(fmt.Sprintf(format, a...))
	}
}

// label names a target in messages: its name, and its size when it has one.
func (t Target) label() string {
	if t.Size == 0 {
		return t.Name
	}
	return fmt.Sprintf("%s (size %d)", t.Name, t.Size)
}

// logPath is the log of one target's step.
func (opt Options) logPath(t Target, step string) string {
	return filepath.Join(opt.LogDir, fmt.Sprintf("%s-%d-%s.log", t.Name, t.Size, step))
}
