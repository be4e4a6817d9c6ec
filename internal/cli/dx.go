package cli

import (
	"context"
	"io"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/suite/dx"
)

func init() {
	register(Command{Name: "dx", Short: "developer experience: install, build, artifact, dependencies, reload", Order: 45, Run: runDXCommand})
}

const dxSynopsis = "[-f FILE] [--stacks a,b] [-o text|json]"

func runDXCommand(ctx context.Context, args []string, env Env) error {
	pro := newPrologue("dx", dxSynopsis, "comparison file", "output: text or json", env)
	only := stacksFlag(pro.fs, "measure only these stacks (a process: section's commands are kept)")
	if err := pro.parse(args); err != nil {
		return err
	}
	f, err := pro.comparison(func(f *plan.File) (err error) {
		f.Stacks, err = selectStacks(f, *only)
		return err
	})
	if err != nil {
		return err
	}
	if !f.HasDX() {
		return usagef("%s asks for no DX measurement; add a dx: key to a stack or a process command (see docs/dx.md)", f.Name)
	}
	return runSuite(pro, env, "dx", func(logDir string, log func(string)) (dx.Result, error) {
		return run.DX(ctx, f, logDir, log)
	}, func(w io.Writer, r dx.Result) { report.WriteText(w, report.DXModel(r)) }, "a DX measurement failed; see its error above")
}
