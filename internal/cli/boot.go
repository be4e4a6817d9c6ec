package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/suite/boot"
	"github.com/stackbench/stackbench/internal/workload"
)

func init() {
	register(Command{Name: "boot", Short: "cold starts: boot time, first database request, idle memory", Order: 40, Run: runBoot})
}

const bootSynopsis = "[-f FILE] [-n N] [--stacks a,b] [-o text|json]"

// bootDatabase begins the name of the database the boot suite's stacks
// use: a fresh copy of the seeded template, named stack.CopyName makes.
const bootDatabase = "stackbench_boot"

func runBoot(ctx context.Context, args []string, env Env) error {
	a, err := parseBootArgs(args, env)
	if err != nil {
		return err
	}
	res, err := bootSuite(ctx, a, env)
	if err != nil {
		return err
	}
	if a.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printBoot(env.Stdout, res, a.first.Method+" "+a.first.Path, a.starts)
	}
	return firstFailures(res)
}

// bootArgs is a checked `stackbench boot` command line, its file loaded.
type bootArgs struct {
	file   *plan.File
	plan   *plan.Plan
	starts int           // measured cold starts per stack
	first  workload.Case // the first request's case
	json   bool
}

func parseBootArgs(args []string, env Env) (bootArgs, error) {
	pro := newPrologue("boot", bootSynopsis, "comparison file", "output: text or json", env)
	n := pro.fs.Int("n", 0, "measured cold starts per stack (default: the profile's boot_starts, or 10 when that is 0)")
	stacks := stacksFlag(pro.fs, "start only these stacks")
	if err := pro.parse(args); err != nil {
		return bootArgs{}, err
	}
	if flagSet(pro.fs, "n") && (*n < 1 || *n > 1000) {
		return bootArgs{}, usagef("-n %d: give between 1 and 1000 cold starts per stack, or leave -n out for the profile's boot_starts", *n)
	}
	a := bootArgs{starts: *n, json: pro.json()}
	var err error
	a.file, err = pro.comparison(func(f *plan.File) (err error) {
		a.plan, err = resolvePlan(f, plan.Overrides{Stacks: []string(*stacks)})
		return err
	})
	if err != nil {
		return bootArgs{}, err
	}
	if a.starts == 0 {
		a.starts = a.plan.Protocol.BootStarts
	}
	if a.starts == 0 {
		a.starts = boot.DefaultStarts
	}
	var ok bool
	if a.first, ok = boot.FirstRequestCase(a.file.Workload); !ok {
		return bootArgs{}, usagef("workload %q has no cases, so there is no first request to time", a.file.Workload.Name)
	}
	return a, nil
}

// bootSuite builds the stacks, gives them a fresh database when the
// workload needs one, and runs the cold starts. The stacks' logs are kept
// only when a start failed.
func bootSuite(ctx context.Context, a bootArgs, env Env) (boot.Result, error) {
	logDir, err := os.MkdirTemp("", "stackbench-boot-")
	if err != nil {
		return boot.Result{}, err
	}
	progress := func(line string) { fmt.Fprintln(env.Stderr, line) }
	keepLogs := false
	defer func() {
		if !keepLogs {
			os.RemoveAll(logDir)
		}
	}()
	p, f := a.plan, a.file
	if err := stack.BuildAll(ctx, p.Stacks, logDir, progress); err != nil {
		return boot.Result{}, err // it quotes the build's output
	}
	h := stack.Harness{Workload: f.Workload.Name, JWTSecret: f.JWTSecret}
	var db *stack.Database
	if f.Workload.NeedsDatabase {
		if db, err = stack.OpenFileDatabase(ctx, f, os.TempDir(), progress); err != nil {
			return boot.Result{}, err
		}
	}
	var call *workload.GRPCCall
	if a.first.GRPCTemplated && f.Scenario != nil {
		calls, err := f.Scenario.CallVariants(a.first, nil)
		if err != nil {
			db.Close(true)
			return boot.Result{}, err
		}
		call = &calls[0]
	}
	// Each stack gets a copy of its own template: its setup steps (run
	// on its unmeasured start) and its writes meet no other stack's.
	var stacks []boot.Stack
	for _, s := range p.Stacks {
		hs := h
		if db != nil {
			if hs.DatabaseURL, err = db.FreshFor(ctx, s, stack.CopyName(bootDatabase)); err != nil {
				db.Close(true)
				return boot.Result{}, err
			}
		}
		bs, err := stack.BootStacks([]plan.Stack{s}, hs, logDir, a.first, call)
		if err != nil {
			db.Close(true)
			return boot.Result{}, err
		}
		for i := range bs {
			bs[i].Setup = stack.BootSetup(s, f.Scenario, logDir)
		}
		stacks = append(stacks, bs...)
	}
	res, err := boot.Run(ctx, stacks, boot.Options{Starts: a.starts, Request: a.first, Progress: progress, BootTimeout: stack.LongestBootTimeout(p.Stacks)})
	if cerr := db.Close(true); cerr != nil {
		progress("warning: removing the boot database: " + cerr.Error())
	}
	if ctx.Err() != nil {
		return boot.Result{}, ctx.Err()
	}
	if err != nil {
		keepLogs = true
		return boot.Result{}, fmt.Errorf("%w\nthe stacks' logs are in %s", err, logDir)
	}
	return res, nil
}

func printBoot(w io.Writer, res boot.Result, request string, starts int) {
	fmt.Fprintf(w, "Cold starts: %d per stack after one unmeasured start each, in a balanced order.\n", starts)
	fmt.Fprintf(w, "boot = spawn → first 200 on the health path; first = %s (case %s) on the fresh process;\nidle RSS = the process tree %s after the first 200. Median (interquartile range).\n\n",
		request, res.Case, boot.IdleDelay)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stack\tboot\tfirst\tidle RSS\tfirst failed")
	for _, s := range res.Stacks {
		fmt.Fprintf(tw, "%s\t%s (%s)\t%s\t%.1f MiB (%.1f)\t%d of %d\n", s.Stack,
			ms(s.Boot.Median), ms(s.Boot.IQR), firstCell(s.FirstRequest), s.IdleRSS.Median.MiB(), s.IdleRSS.IQR.MiB(), s.FirstFailed, s.Starts)
	}
	tw.Flush()
}

func firstCell(s boot.Spread[boot.Nanoseconds]) string {
	if s.N == 0 {
		return "—"
	}
	return ms(s.Median) + " (" + ms(s.IQR) + ")"
}

// ms formats a duration in milliseconds.
func ms(ns boot.Nanoseconds) string { return fmt.Sprintf("%.2f ms", ns.Milliseconds()) }

// firstFailures turns failed first requests into exit status 1.
func firstFailures(res boot.Result) error {
	var bad []string
	for _, s := range res.Stacks {
		if s.FirstFailed > 0 {
			what := fmt.Sprintf("%s (%d of %d)", s.Stack, s.FirstFailed, s.Starts)
			if s.FirstError != "" {
				what += ": " + s.FirstError
			}
			bad = append(bad, what)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &ExitError{Code: ExitGateFailed, Msg: "the first request failed or got an unexpected status on " + strings.Join(bad, ", ") + "; run stackbench parity to see what the stacks answer"}
}
