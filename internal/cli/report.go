package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/cost"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
)

func init() {
	register(Command{Name: "report", Short: "render a results directory, or compare two", Order: 70, Run: runReport})
}

const reportSynopsis = "DIR [--live [HOST:PORT]] [-o html|md|json|bench|text] [--pricing FILE] [--fail-on loss,undecided,invalid,threshold] [--steps A..B] [--metrics throughput,per_cpu] [--junit FILE] [--history FILE] | A B (or A1 A2 … -- B1 B2 …) [-o md|json] [--fail-on loss,undecided] [--reference STACK] [--assume-same-host] [--between-run 3%]"

func runReport(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("report", reportSynopsis, env)
	output := fs.String("o", "", "write only this format: html (report.html), md (summary.md), json (report.json), bench (bench.txt), or text (what stackbench run prints, to standard output); default: all the files. With two directories: md or json, to standard output")
	pricingFile := fs.String("pricing", "", "price the cost model with this pricing file instead of the built-in snapshot")
	gf := addGateFlags(fs, true)
	minEffect := fs.String("min-effect", "", "smallest shift called a gain or a loss, e.g. 5% (default: each run's own)")
	var cmp report.CompareOptions
	fs.StringVar(&cmp.Reference, "reference", "", "with two directories: the stack both runs share unchanged, each other stack compared through its ratio to it (default: the first stack of A that B has unchanged)")
	fs.BoolVar(&cmp.AssumeSameHost, "assume-same-host", false, "comparing runs: judge them although their hosts differ (CPU model, count, memory, kernel) or, with no shared reference, although their windows are pooled, trusting that the machine did not change the figures")
	lf := addLiveFlags(fs, "the results directory, following its journal as a run writes it (until Ctrl-C)")
	args = joinLiveAddr(args)
	betweenRun := fs.String("between-run", "", "comparing one run with one: the run-to-run spread of a run's figure (standard deviation), e.g. 2% (default: the spread stackbench spread measured on this machine, else 3% assumed)")
	// A1 A2 … -- B1 B2 …: the runs of each side, flags on either side.
	var restB []string
	sides := false
	if i := slices.Index(args, "--"); i >= 0 {
		sides = true
		var err error
		if restB, err = parseFlags(fs, args[i+1:]); err != nil {
			return err
		}
		args = args[:i]
	}
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	gate, err := gf.parse(len(rest) == 2 || sides)
	if err != nil {
		return err
	}
	if *pricingFile != "" && len(rest) == 2 {
		return usagef("--pricing prices one run's report; a comparison of two runs has no cost section: drop --pricing, or name one directory")
	}
	opt := report.BuildOptions{}
	if *minEffect != "" {
		f, err := plan.ParseFraction(*minEffect)
		if err != nil {
			return usagef("--min-effect %q: %v; write e.g. --min-effect 5%%", *minEffect, err)
		}
		opt.MinEffect = f
	}
	if *pricingFile != "" {
		p, err := loadPricing(resolvePath(env, *pricingFile))
		if err != nil {
			return err
		}
		opt.Pricing = &p
	}
	if *betweenRun != "" {
		f, err := plan.ParseFraction(*betweenRun)
		if err != nil || f <= 0 {
			return usagef("--between-run %q: write the run-to-run spread as a percentage above 0, e.g. --between-run 2%%", *betweenRun)
		}
		cmp.BetweenRun = f
	}
	if lf.live.on || *lf.allowRemote {
		if sides || len(rest) != 1 {
			return usagef("--live follows one results directory: stackbench report --live DIR")
		}
		if gate.active() || *output != "" {
			return usagef("--live serves a page and writes nothing: drop -o and --fail-on (run stackbench report DIR for the files)")
		}
		return followLive(ctx, lf, resolvePath(env, rest[0]), opt, env)
	}
	if sides {
		if len(rest) == 0 || len(restB) == 0 {
			return usagef("name the runs of each side around --: stackbench report A1 A2 … -- B1 B2 …")
		}
		return compareReports(resolvePaths(env, rest), resolvePaths(env, restB), *output, gate, opt, cmp, env)
	}
	switch len(rest) {
	case 1:
		dir := resolvePath(env, rest[0])
		formats, err := reportFormats(*output)
		if err != nil {
			return err
		}
		m, err := buildReport(dir, opt, env)
		if err != nil {
			return err
		}
		if gate.active() {
			// Gating reads the run: its flags are checked before anything
			// is written, and it writes no report file unless -o names
			// one (a gate in CI must not rewrite what it judges).
			if err := report.CheckRunGate(m, gate.GateSpec); err != nil {
				return usagef("%v", err)
			}
			if *output == "" {
				formats = nil
			}
		}
		if err := writeReport(dir, m, formats, env); err != nil {
			return err
		}
		if *output == "text" {
			report.WriteText(env.Stdout, m)
		}
		return judgeRun(m, gate, dir, env)
	case 2:
		return compareReports(resolvePaths(env, rest[:1]), resolvePaths(env, rest[1:]), *output, gate, opt, cmp, env)
	case 0:
		return usagef("name a results directory (stackbench report results/<run>), or two to compare")
	default:
		return usagef("too many arguments: name one results directory, or two to compare")
	}
}

// reportFormats reads -o: the one file format it names, all of them, or
// none for text (the terminal's lines, to standard output).
func reportFormats(output string) ([]report.Format, error) {
	switch output {
	case "":
		return report.Formats, nil
	case "text":
		return nil, nil
	}
	f, ok := report.FormatByName(output)
	if !ok {
		return nil, usagef("-o %s: write -o html, md, json, bench or text (or leave -o out for all the files)", output)
	}
	return []report.Format{f}, nil
}

// writeReport writes the report files of one results directory into it.
func writeReport(dir string, m *report.Model, formats []report.Format, env Env) error {
	for _, f := range formats {
		if err := report.WriteFile(dir, m, f); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, filepath.Join(dir, f.File))
	}
	return nil
}

// buildReport reads one results directory into its report model, writing
// nothing.
func buildReport(dir string, opt report.BuildOptions, env Env) (*report.Model, error) {
	res, err := readResults(dir)
	if err != nil {
		return nil, err
	}
	m, err := report.FromResults(res, opt)
	if err != nil {
		return nil, err
	}
	report.AddProfiling(dir, res, m)
	printNotes(env, m)
	return m, nil
}

// compareReports measures the runs b against the runs a and prints the
// comparison. With a gate, it then judges it as a regression gate
// (judgeComparison).
func compareReports(a, b []string, output string, gate gateSpec, opt report.BuildOptions, cmp report.CompareOptions, env Env) error {
	if output != "" && output != "md" && output != "json" {
		return usagef("-o %s: a comparison is written as -o md (the default) or -o json", output)
	}
	read := func(dirs []string) ([]*report.Model, error) {
		var out []*report.Model
		for _, dir := range dirs {
			res, err := readResults(dir)
			if err != nil {
				return nil, err
			}
			m, err := report.FromResults(res, opt)
			if err != nil {
				return nil, err
			}
			printNotes(env, m)
			out = append(out, m)
		}
		return out, nil
	}
	ma, err := read(a)
	if err != nil {
		return err
	}
	mb, err := read(b)
	if err != nil {
		return err
	}
	for _, x := range ma {
		for _, y := range mb {
			if why := report.NothingInCommon(x, y); why != "" {
				// Nothing to compare is the gate's "cannot judge"
				// (docs/ci.md), with or without --fail-on.
				return &ExitError{Code: ExitCannotJudge, Msg: "cannot judge: " + why}
			}
		}
	}
	if cmp.BetweenRun == 0 && len(ma) == 1 && len(mb) == 1 {
		if sp, ok := measuredSpread(env, ma[0].Host()); ok {
			cmp.BetweenRun, cmp.CostBetweenRun = sp.ThroughputSD, sp.CostSD
			cmp.BetweenRunSource = fmt.Sprintf("measured on this machine from %d runs on %s (stackbench spread)", len(sp.Runs), sp.Measured.Format("2006-01-02"))
		}
	} else if cmp.BetweenRun > 0 {
		cmp.BetweenRunSource = "as given (--between-run)"
	}
	c, err := report.CompareRuns(ma, mb, cmp)
	if err != nil {
		return fmt.Errorf("compare %s with %s: %w", strings.Join(a, " "), strings.Join(b, " "), err)
	}
	if output == "json" {
		err = report.WriteComparisonJSON(env.Stdout, c)
	} else {
		err = report.WriteComparisonMarkdown(env.Stdout, c)
	}
	if err != nil || !gate.active() {
		return err
	}
	return judgeComparison(c, gate, env)
}

func resolvePaths(env Env, dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = resolvePath(env, d)
	}
	return out
}

// judgeComparison is the regression gate across two runs: ExitCannotJudge
// when the runs' hosts may have run at different speeds, whatever the
// calls say; otherwise as judgeRun, each stack's step from A to B.
func judgeComparison(c *report.Comparison, gate gateSpec, env Env) error {
	if len(c.CannotJudge) > 0 {
		return &ExitError{Code: ExitCannotJudge, Msg: "cannot judge: " + strings.Join(c.CannotJudge, "; ") +
			"; put both versions in one run as neighbouring stacks, so their windows interleave on the same host (or, if the hosts are in fact the same, give --assume-same-host)"}
	}
	checks, err := report.Judge(c.Steps, gate.GateSpec)
	if err != nil {
		return err
	}
	return verdictExit(report.Gate{Checks: checks}.Verdict(), gate, "from A to B ", env)
}

// printNotes tells the user about journal lines that were skipped.
func printNotes(env Env, m *report.Model) {
	for _, line := range report.NoteLines(m) {
		fmt.Fprintln(env.Stderr, line)
	}
}

func loadPricing(path string) (cost.Pricing, error) {
	f, err := os.Open(path)
	if err != nil {
		return cost.Pricing{}, usagef("--pricing %s: cannot read it (%v); name a pricing file (docs/cost.md shows its format)", path, errors.Unwrap(err))
	}
	defer f.Close()
	p, err := cost.LoadPricing(f)
	if err != nil {
		return cost.Pricing{}, &UsageError{Msg: fmt.Sprintf("--pricing %s: %s", path, strings.TrimSpace(err.Error()))}
	}
	return p, nil
}
