package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/stackbench/stackbench/internal/boot"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
)

func init() {
	register(Command{Name: "boot", Short: "cold starts: boot time, first database request, idle memory", Order: 40, Run: runBoot})
}

const bootSynopsis = "[-f FILE] [-n N] [--stacks a,b] [-o text|json]"

// bootDatabase is the database the boot suite's stacks use: a fresh copy of
// the seeded template.
const bootDatabase = "stackbench_boot"

func runBoot(ctx context.Context, args []string, env Env) error {
	pro := newPrologue("boot", bootSynopsis, "comparison file", "output: text or json", env)
	fs := pro.fs
	n := fs.Int("n", 0, "measured cold starts per stack (default: the profile's boot_starts, or 10 when that is 0)")
	stacks := fs.String("stacks", "", "only these stacks, comma-separated (they keep the file's order)")
	if err := pro.parse(args); err != nil {
		return err
	}
	if flagSet(fs, "n") && (*n < 1 || *n > 1000) {
		return usagef("-n %d: give between 1 and 1000 cold starts per stack, or leave -n out for the profile's boot_starts", *n)
	}
	var p *plan.Plan
	f, err := pro.comparison(func(f *plan.File) (err error) {
		p, err = f.Resolve(plan.Overrides{Stacks: commaList(*stacks)})
		return err
	})
	if err != nil {
		return err
	}
	starts := *n
	if starts == 0 {
		starts = p.Protocol.BootStarts
	}
	if starts == 0 {
		starts = boot.DefaultStarts
	}
	first, ok := boot.FirstRequestCase(f.Workload)
	if !ok {
		return usagef("workload %q has no cases, so there is no first request to time", f.Workload.Name)
	}
	logDir, err := os.MkdirTemp("", "stackbench-boot-")
	if err != nil {
		return err
	}
	progress := func(line string) { fmt.Fprintln(env.Stderr, line) }
	keepLogs := false // kept only when a start failed, for its logs
	defer func() {
		if !keepLogs {
			os.RemoveAll(logDir)
		}
	}()
	if err := stack.BuildAll(ctx, p.Stacks, logDir, progress); err != nil {
		return err // it quotes the build's output
	}
	h := stack.Harness{Workload: f.Workload.Name, JWTSecret: f.JWTSecret}
	var db *stack.Database
	if f.Workload.NeedsDatabase {
		if db, err = stack.OpenDatabase(ctx, f.Database, "", progress); err != nil {
			return err
		}
		if h.DatabaseURL, err = db.Fresh(ctx, bootDatabase); err != nil {
			db.Close(true)
			return err
		}
	}
	res, err := boot.Run(ctx, stack.BootStacks(p.Stacks, h, logDir), boot.Options{Starts: starts, Request: first, Progress: progress, BootTimeout: stack.LongestBootTimeout(p.Stacks)})
	if cerr := db.Close(true); cerr != nil {
		progress("warning: removing the boot database: " + cerr.Error())
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		keepLogs = true
		return fmt.Errorf("%w\nthe stacks' logs are in %s", err, logDir)
	}
	if pro.json() {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printBoot(env.Stdout, res, first.Method+" "+first.Path, starts)
	}
	return firstFailures(res)
}

func printBoot(w io.Writer, res boot.Result, request string, starts int) {
	fmt.Fprintf(w, "Cold starts: %d per stack after one unmeasured start each, in rotated order.\n", starts)
	fmt.Fprintf(w, "boot = spawn → first 200 on the health path; first = %s (case %s) on the fresh process;\nidle RSS = the process tree %s after the first 200. Median (interquartile range).\n\n",
		request, res.Case, boot.IdleDelay)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stack\tboot\tfirst\tidle RSS\tfirst failed")
	for _, s := range res.Stacks {
		fmt.Fprintf(tw, "%s\t%s (%s)\t%s\t%.1f MiB (%.1f)\t%d of %d\n", s.Stack,
			ms(s.Boot.Median), ms(s.Boot.IQR), firstCell(s.FirstRequest), s.IdleRSS.Median/(1<<20), s.IdleRSS.IQR/(1<<20), s.FirstFailed, s.Starts)
	}
	tw.Flush()
}

func firstCell(s boot.Spread) string {
	if s.N == 0 {
		return "—"
	}
	return ms(s.Median) + " (" + ms(s.IQR) + ")"
}

// ms formats nanoseconds as milliseconds.
func ms(ns float64) string { return fmt.Sprintf("%.2f ms", ns/1e6) }

// firstFailures turns failed first requests into exit status 1.
func firstFailures(res boot.Result) error {
	var bad []string
	for _, s := range res.Stacks {
		if s.FirstFailed > 0 {
			bad = append(bad, fmt.Sprintf("%s (%d of %d)", s.Stack, s.FirstFailed, s.Starts))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &ExitError{Code: 1, Msg: "the first request failed or got an unexpected status on " + strings.Join(bad, ", ") + "; run stackbench parity to see what the stacks answer"}
}
