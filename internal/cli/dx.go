package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
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
	}, printDX, "a DX measurement failed; see its error above")
}

// printDX prints the DX suite as a table, medians with their range.
func printDX(w io.Writer, res dx.Result) {
	fmt.Fprintln(w, "Developer experience: medians (min–max) over the rounds; cold = after emptying the cold: directories.")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tinstall cold\tinstall warm\tgenerate cold\tgenerate warm\tbuild cold\tbuild warm\tartifact\tdeps\treload")
	for _, t := range res.Targets {
		name := t.Name
		if t.Size != 0 {
			name += fmt.Sprintf(" @%d", t.Size)
		}
		cells := []string{name}
		for _, tm := range []*dx.Timing{t.Install, t.Generate, t.Build} {
			if tm == nil {
				cells = append(cells, "—", "—")
				continue
			}
			cells = append(cells, spreadText(tm.Cold), spreadText(tm.Warm))
		}
		art := "—"
		if t.ArtifactBytes > 0 {
			art = fmtBytes(t.ArtifactBytes)
		}
		deps := "—"
		if t.Deps != nil {
			deps = fmt.Sprintf("%s in %d %s packages", fmtBytes(t.Deps.Bytes), t.Deps.Packages, t.Deps.Ecosystem)
		}
		cells = append(cells, art, deps, spreadText(t.Reload))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	for _, t := range res.Targets {
		if t.Error != "" {
			fmt.Fprintf(w, "\n%s failed: %s\n", t.Name, t.Error)
		}
	}
}

func spreadText(s *dx.Spread) string {
	if s == nil {
		return "—"
	}
	return fmt.Sprintf("%s (%s–%s)", fmtDuration(s.Median), fmtDuration(s.Min), fmtDuration(s.Max))
}

// fmtDuration shows a duration in ms below 10 s, else in s.
func fmtDuration(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// fmtBytes shows a size in KiB or MiB.
func fmtBytes(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
