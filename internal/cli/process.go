package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

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
	}, printProcess, "a command failed (exit status or timeout); its cell has no figures")
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

// printProcess prints the cells and the calls.
func printProcess(w io.Writer, res spawn.Result) {
	fmt.Fprintf(w, "Process suite: spawn → exit, %d measured runs per command and size after %d warm-up runs, rotated order.\nMedian (min–max); the programs' own figures beside.\n\n", res.Rounds, res.Warmup)
	metrics := res.MetricNames()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "size\tcommand\twall\t"+strings.Join(metrics, "\t"))
	for _, c := range res.Cells {
		if c.Error != "" {
			fmt.Fprintf(tw, "%d\t%s\tfailed\n", c.Size, c.Command)
			continue
		}
		cells := []string{fmt.Sprint(c.Size), c.Command, fmt.Sprintf("%.2f ms (%.2f–%.2f)", c.Wall.Median/1e6, c.Wall.Min/1e6, c.Wall.Max/1e6)}
		for _, m := range metrics {
			if s, ok := c.Metrics[m]; ok {
				cells = append(cells, fmt.Sprintf("%.4g", s.Median))
			} else {
				cells = append(cells, "—")
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	if len(res.Calls) > 0 {
		fmt.Fprintln(w, "\nAgainst the first command (wall time):")
		for _, c := range res.Calls {
			if !c.Defined {
				fmt.Fprintf(w, "  size %d: %s → %s: no comparison (a cell failed)\n", c.Size, c.From, c.To)
				continue
			}
			fmt.Fprintf(w, "  size %d: %s → %s: %+.1f%%, %s (%s)\n", c.Size, c.From, c.To, 100*c.Change, c.Verdict, c.Detail)
		}
	}
	for _, c := range res.Cells {
		if c.Error != "" {
			fmt.Fprintf(w, "\n%s at size %d failed: %s\n", c.Command, c.Size, c.Error)
		}
	}
}
