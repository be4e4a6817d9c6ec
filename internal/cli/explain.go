package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run"
)

func init() {
	register(Command{Name: "explain", Short: "why a step differs: profile each cell and name the functions and statements per request", Order: 62, Run: runExplain})
}

const explainSynopsis = "[-f FILE] [--steps FROM..TO | --stacks a,b] [--cases c,d] [--out DIR] [protocol flags]"

// runExplain runs the profiling phase for a file's stacks (those from
// FROM to TO in file order with --steps), with the least around it that
// it needs: the parity gate, one round of windows (the cells' throughput
// the profile windows' overhead is set against), no boot suite, then one
// profile window per cell; it prints each step's top changes and writes
// the reports. The results directory resumes with stackbench run --resume.
func runExplain(ctx context.Context, args []string, env Env) error {
	ra, err := parseExplainArgs(args, env)
	if err != nil {
		return err
	}
	opt, err := runOptions(ra, env)
	if err != nil {
		return err
	}
	runInterruptNotes(env, opt.Dir)
	fmt.Fprintf(env.Stderr, "stackbench explain: %s, %s and a profile window per cell, results in %s\n",
		countNoun(len(opt.Plan.Stacks), "stack"), countNoun(len(opt.Plan.Windows), "window"), opt.Dir)
	outcome, err := run.Run(ctx, opt)
	printOutcome(env, outcome, err)
	if !errors.Is(err, run.ErrParity) && outcome != nil && outcome.Measured+outcome.Skipped > 0 {
		partial := outcome.Measured+outcome.Skipped < outcome.Planned
		if opt.Plan.Protocol.LastRound() > 1 || partial {
			writeRunReport(env, opt.Dir, partial)
		} else {
			writeExplainReport(env, opt.Dir)
		}
	}
	return runExit(err, opt.Dir, false)
}

// writeExplainReport writes the report of an explain of one round and
// prints its profiles' findings without the calls: one window per cell
// is what the profile windows are set against, not the rounds a call
// needs, so every step would print as undecided or invalid.
func writeExplainReport(env Env, dir string) {
	m, err := report.Build(dir)
	if err == nil {
		err = report.WriteAll(dir, m)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: the report could not be written (%v); the journal is intact: stackbench report %s\n", err, dir)
		return
	}
	fmt.Fprintln(env.Stdout, "\nOne window per cell, to set the profiles against: too few for calls. For gains and losses with their intervals, `stackbench run` (with profiling: on, both at once).")
	report.WriteProfilingSection(env.Stdout, m)
	fmt.Fprintf(env.Stdout, "\nreport: %s\n", filepath.Join(dir, "report.html"))
}

// parseExplainArgs reads explain's command line into the run's: the
// stacks of --steps, profiling on, one fixed round and no boot suite
// unless the protocol flags say otherwise.
func parseExplainArgs(args []string, env Env) (runArgs, error) {
	pro := newPrologue("explain", explainSynopsis, "comparison file", "", env)
	fs := pro.fs
	out := fs.String("out", "", "results directory (default results/<timestamp>)")
	steps := fs.String("steps", "", "the stacks from FROM to TO in the file's order, e.g. --steps nethttp-pgx..nethttp-pgx-pgo (default: every stack)")
	overrides := overrideFlags(fs)
	if err := pro.parse(args); err != nil {
		return runArgs{}, err
	}
	if (flagSet(fs, "stacks") || flagSet(fs, "stack")) && *steps != "" {
		return runArgs{}, usagef("name the stacks with --steps FROM..TO or with --stacks a,b, not both")
	}
	o, err := overrides()
	if err != nil {
		return runArgs{}, err
	}
	ra := runArgs{file: resolvePath(env, *pro.file)}
	if *out != "" {
		ra.out = resolvePath(env, *out)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	yes, no, zero := true, false, 0
	o.Profiling = &yes
	if !set["rounds"] {
		o.Rounds, o.Adaptive = 1, &no
		// One round holds no latency cell (a cell needs 3 rounds): its
		// windows are left out, whatever the file says, unless asked for.
		o.NoLatency = o.NoLatency || !set["latency-rate"]
	}
	if !set["boot-starts"] {
		o.BootStarts = &zero
	}
	if *steps != "" {
		var names []string
		if _, err := readComparison(env, ra.file, func(f *plan.File) error {
			names, err = stepStacks(*steps, f.StackNames())
			return err
		}); err != nil {
			return ra, err
		}
		o.Stacks = names
	}
	ra.overrides = o
	// Recorded as run's arguments, so that run --resume continues it.
	ra.recorded = []string{"-f", ra.file, "--profiling=true"}
	if !set["rounds"] {
		ra.recorded = append(ra.recorded, "--rounds=1")
	}
	if o.NoLatency && !set["no-latency"] {
		ra.recorded = append(ra.recorded, "--no-latency")
	}
	if !set["boot-starts"] {
		ra.recorded = append(ra.recorded, "--boot-starts=0")
	}
	if len(o.Stacks) > 0 {
		ra.recorded = append(ra.recorded, "--stacks="+strings.Join(o.Stacks, ","))
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "f", "out", "steps":
			return
		}
		ra.recorded = append(ra.recorded, "--"+f.Name+"="+f.Value.String())
	})
	return ra, nil
}

// stepStacks reads FROM..TO against the file's stacks: FROM, TO and every
// stack listed between them.
func stepStacks(spec string, stacks []string) ([]string, error) {
	from, to, ok := strings.Cut(spec, "..")
	if !ok || from == "" || to == "" {
		return nil, usagef("--steps %q: write FROM..TO with two stack names, e.g. --steps %s", spec, exampleSteps(stacks))
	}
	i, j := slices.Index(stacks, from), slices.Index(stacks, to)
	for _, bad := range []struct {
		name string
		at   int
	}{{from, i}, {to, j}} {
		if bad.at < 0 {
			return nil, usagef("--steps: no stack %q in the file; its stacks are %s", bad.name, strings.Join(stacks, ", "))
		}
	}
	if i >= j {
		return nil, usagef("--steps %s: %s must be listed before %s in the file (steps run in the file's order)", spec, from, to)
	}
	return stacks[i : j+1], nil
}

func exampleSteps(stacks []string) string {
	if len(stacks) >= 2 {
		return stacks[0] + ".." + stacks[1]
	}
	return "a..b"
}

// profilingEstimate is the plan line's part for the profiling phase.
func profilingEstimate(p *plan.Plan) string {
	if !p.Protocol.Profiling {
		return ""
	}
	cells := len(p.Stacks) * len(p.Cases) * len(p.Protocol.Concurrency)
	return fmt.Sprintf(", profiling %s of %s %s", countNoun(cells, "window"), p.Protocol.ProfilingWindow(), roundEstimate(p.EstimateProfiling()))
}
