package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run"
	"github.com/stackbench/stackbench/internal/stats"
)

func init() {
	register(Command{Name: "run", Short: "run the whole comparison: parity, cold starts, every window, the report", Order: 60, Run: runRun})
}

const runSynopsis = "[-f FILE] [--profile P] [--out DIR | --resume DIR] [--live [HOST:PORT]] [--stacks a,b] [--cases c,d] [--skip-parity] [--known-hosts FILE] [--fail-on loss[,undecided][,invalid]] [--steps A..B] [--metrics throughput,per_cpu] [protocol flags]"

// runArgs is a parsed `stackbench run` command line.
type runArgs struct {
	file       string // absolute
	out        string // absolute, "" for the default
	resume     string // absolute
	skipParity bool
	// knownHosts is --known-hosts: the known_hosts file for the hosts of
	// roles: ("" for ~/.ssh/known_hosts).
	knownHosts string
	overrides  plan.Overrides
	// gate judges the finished run's steps; it is not recorded, and may
	// be given with --resume.
	gate gateSpec
	// recorded are the arguments that shape the plan, -f made absolute, as
	// journaled for a resume.
	recorded []string
	// live is --live and --allow-remote: the live page, not recorded.
	live *liveFlags
	// fileGiven is true when -f was on the command line (with --resume,
	// the user names the comparison file whose commands run).
	fileGiven bool
}

func parseRunArgs(args []string, env Env) (runArgs, error) {
	pro := newPrologue("run", runSynopsis, "comparison file", "", env)
	fs := pro.fs
	out := fs.String("out", "", "results directory (default results/<timestamp>)")
	resume := fs.String("resume", "", "continue the stopped run in this results directory (with the arguments it was started with)")
	skipParity := fs.Bool("skip-parity", false, "measure without the parity gate (the report says so in its first line)")
	lf := addLiveFlags(fs, "the run")
	args = joinLiveAddr(args)
	knownHosts := fs.String("known-hosts", "", "known_hosts file the keys of the hosts of roles: are checked against (default ~/.ssh/known_hosts)")
	overrides := overrideFlags(fs)
	gf := addGateFlags(fs, false)
	if err := pro.parse(args); err != nil {
		return runArgs{}, err
	}
	gate, err := gf.parse(false)
	if err != nil {
		return runArgs{}, err
	}
	ra := runArgs{file: resolvePath(env, *pro.file), skipParity: *skipParity, gate: gate, live: lf}
	if *knownHosts != "" {
		ra.knownHosts = resolvePath(env, *knownHosts)
	}
	if *out != "" {
		ra.out = resolvePath(env, *out)
	}
	if *resume != "" {
		ra.resume = resolvePath(env, *resume)
		var extra []string
		fs.Visit(func(f *flag.Flag) {
			switch {
			case f.Name == "resume" || f.Name == "f" || f.Name == "known-hosts" || f.Name == "live" || f.Name == "allow-remote" || slices.Contains(gateFlagNames, f.Name):
			case len(f.Name) == 1:
				extra = append(extra, "-"+f.Name)
			default:
				extra = append(extra, "--"+f.Name)
			}
		})
		if len(extra) > 0 {
			return ra, usagef("--resume continues a run in its own directory with the arguments it was started with; drop %s (or start a new run with them)", strings.Join(extra, ", "))
		}
	}
	fs.Visit(func(f *flag.Flag) { ra.fileGiven = ra.fileGiven || f.Name == "f" })
	if ra.overrides, err = overrides(); err != nil {
		return ra, err
	}
	ra.recorded = []string{"-f", ra.file}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "f", "out", "resume", "live", "allow-remote":
			return
		}
		if slices.Contains(gateFlagNames, f.Name) {
			return
		}
		ra.recorded = append(ra.recorded, "--"+f.Name+"="+f.Value.String())
	})
	return ra, nil
}

func runRun(ctx context.Context, args []string, env Env) error {
	ra, err := resumeArgs(args, env)
	if err != nil {
		return err
	}
	opt, err := runOptions(ra, env)
	if err != nil {
		return err
	}
	if err := ra.gate.needsLatency(opt.Plan.Protocol.Latency != nil); err != nil {
		return err
	}
	runInterruptNotes(env, opt.Dir)
	if ra.live.live.on || *ra.live.allowRemote {
		// The page is served from this process: its CPU is the harness's
		// own (proc.SelfGroup), never foreign to the gate nor a stack's.
		srv, err := startLive(ra.live, opt.Dir, true, report.BuildOptions{}, env)
		if err != nil {
			return err
		}
		defer func() {
			srv.Finish()
			srv.Close()
		}()
	}
	fmt.Fprintf(env.Stderr, "stackbench run: %s, %s, results in %s\n", countNoun(len(opt.Plan.Stacks), "stack"), countNoun(len(opt.Plan.Windows), "window"), opt.Dir)
	outcome, err := run.Run(ctx, opt)
	printOutcome(env, outcome, err)
	var m *report.Model
	finished := outcome != nil && outcome.Measured+outcome.Skipped == outcome.Planned
	if !errors.Is(err, run.ErrParity) && outcome != nil && outcome.Measured+outcome.Skipped > 0 {
		m = writeRunReport(env, opt.Dir, !finished)
	}
	if err != nil {
		return runExit(err, opt.Dir, opt.Resume)
	}
	if !ra.gate.active() && ra.gate.junit == "" && ra.gate.history == "" && env.lookup("GITHUB_ACTIONS") != "true" {
		return nil
	}
	if m == nil || !finished {
		return &ExitError{Code: ExitNotMeasured, Msg: fmt.Sprintf("--fail-on: the run has no report to judge; once fixed: stackbench report %s --fail-on …", opt.Dir)}
	}
	return judgeRun(m, ra.gate, opt.Dir, env)
}

// resumeArgs parses the command line; with --resume, the arguments the run
// was started with, from its journal, take the place of the others.
func resumeArgs(args []string, env Env) (runArgs, error) {
	ra, err := parseRunArgs(args, env)
	if err != nil || ra.resume == "" {
		return ra, err
	}
	prev, err := recordedArgs(ra.resume)
	if err != nil {
		return ra, err
	}
	given := ra
	if ra, err = parseRunArgs(prev, env); err != nil {
		return ra, fmt.Errorf("the arguments recorded in %s no longer parse: %w", given.resume, err)
	}
	if err := trustRecordedFile(given, ra.file); err != nil {
		return ra, err
	}
	// The gate is not recorded: it is this command line's; so are the
	// known_hosts file, which decides which hosts are trusted, and the
	// live page.
	ra.resume, ra.gate, ra.knownHosts, ra.live = given.resume, given.gate, given.knownHosts, given.live
	return ra, nil
}

// runOptions loads the comparison file, resolves the plan and chooses the
// results directory: the run's options.
func runOptions(ra runArgs, env Env) (run.Options, error) {
	var p *plan.Plan
	f, err := readComparison(env, ra.file, func(f *plan.File) (err error) {
		p, err = resolvePlan(f, ra.overrides)
		return err
	})
	if err != nil {
		return run.Options{}, err
	}
	if err := run.RemoteSupported(f, p); err != nil {
		// Measuring the rest here instead would silently answer another
		// question than the file asks.
		return run.Options{}, usagef("%v; remove roles: to run everything on this machine", err)
	}
	for _, w := range []string{undecidableWarning(p), shortWindowWarning(f, p)} {
		if w != "" {
			fmt.Fprintf(env.Stderr, "warning: %s\n", w)
		}
	}
	if _, design := analysis.LayoutOf(p.Protocol); !p.Protocol.Adaptive {
		if note := roundsNote(design, p.Protocol.Rounds); note != "" {
			fmt.Fprintf(env.Stderr, "warning: %s%s\n", countNoun(p.Protocol.Rounds, "round"), note)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return run.Options{}, fmt.Errorf("find the stackbench binary for the load generator: %w", err)
	}
	dir := ra.out
	if ra.resume != "" {
		dir = ra.resume
	} else if dir == "" {
		root := filepath.Join(env.Dir, "results")
		if err := ignoreResults(root); err != nil {
			return run.Options{}, err
		}
		dir = filepath.Join(root, time.Now().Format("20060102-150405"))
	}
	if ra.resume == "" {
		if err := run.CheckNewDir(dir); err != nil {
			return run.Options{}, usagef("%v", err)
		}
	}
	return run.Options{
		File: f, Plan: p, Dir: dir, Resume: ra.resume != "", SkipParity: ra.skipParity,
		Args: ra.recorded, Stackbench: exe, Log: env.Stderr, Live: env.StderrIsTerminal, Width: terminalWidth(env),
		ToolVersion: toolVersion(), Remote: remoteOptions(env, ra.knownHosts),
	}, nil
}

// resultsGitignore is the .gitignore stackbench writes in the default
// results folder: the runs' journals, reports and logs are not the
// repository's, and a user who wants one kept copies it out.
const resultsGitignore = "# Written by stackbench: its runs' journals, reports and logs (docs/run.md).\n# Delete this file to commit them.\n*\n"

// ignoreResults makes the default results folder root, in the user's
// repository, with a .gitignore of its own, unless it has one already.
func ignoreResults(root string) error {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("make the results folder: %w", err)
	}
	path := filepath.Join(root, ".gitignore")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.WriteFile(path, []byte(resultsGitignore), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// runExit turns the run's error into the command's, saying how to go on.
func runExit(err error, dir string, resumed bool) error {
	switch {
	case errors.Is(err, run.ErrParity):
		return &ExitError{Code: ExitNotMeasured, Msg: err.Error()}
	case errors.Is(err, context.Canceled):
		return &ExitError{Code: ExitInterrupted, Msg: fmt.Sprintf("stopped; every window measured so far is in %s; continue with: stackbench run --resume %s%s", dir, dir, keptDatabase(dir))}
	case err != nil && !resumed:
		// The directory now holds a run: a second try with the same --out
		// would be refused. (One who resumed knows about --resume.)
		if _, serr := os.Stat(filepath.Join(dir, journal.FileName)); serr == nil {
			return fmt.Errorf("%w\nthe run's journal is in %s; once this is fixed, continue it with: stackbench run --resume %s (a changed comparison file needs a new run)", err, dir, dir)
		}
	}
	return err
}

// recordedArgs reads the arguments a run was started with from its journal.
func recordedArgs(dir string) ([]string, error) {
	res, err := readResults(dir)
	if err != nil {
		return nil, usagef("--resume %s", err)
	}
	return res.Plan.Args, nil
}

// embeddedDBPathFile is the file of a results directory that names the
// embedded cluster kept for a resume.
const embeddedDBPathFile = run.DBPathFile

// keptDatabase tells, after a stop, where the embedded cluster kept for the
// resume is and how much room it takes, so that a user who will not resume
// can reclaim it; "" when there is none.
func keptDatabase(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, embeddedDBPathFile))
	if err != nil {
		return ""
	}
	cluster := strings.TrimSpace(string(b))
	var sizeBytes int64
	err = filepath.WalkDir(cluster, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, ierr := d.Info(); ierr == nil {
				sizeBytes += info.Size()
			}
		}
		return nil
	})
	if _, serr := os.Stat(cluster); cluster == "" || err != nil || serr != nil {
		return ""
	}
	return fmt.Sprintf(" (its embedded database is kept for it in %s, %.0f MiB; delete that directory if you will not resume)", cluster, float64(sizeBytes)/(1<<20))
}

// runInterruptNotes makes a second Ctrl-C stop the process at once; the first
// one cancels the run's context (see Main), which tears down cleanly.
func runInterruptNotes(env Env, dir string) {
	env.onInterrupt("stopping after tearing down servers and the database; press Ctrl-C again to stop at once",
		fmt.Sprintf("stopped at once; the journal holds every window measured so far; continue with: stackbench run --resume %s", dir))
}

// printOutcome counts the windows of a run; a run that failed before its
// first window has nothing to count, and its error says why.
func printOutcome(env Env, o *run.Outcome, err error) {
	if o == nil || err != nil && o.Measured+o.Skipped == 0 {
		return
	}
	latency := ""
	if o.Latency > 0 {
		latency = fmt.Sprintf(", and %s", countNoun(o.Latency, "latency window"))
	}
	fmt.Fprintf(env.Stderr, "measured %d windows (%d were already journaled) of %d%s in %s\n",
		o.Measured, o.Skipped, o.Planned, latency, o.Elapsed.Round(time.Second))
	for _, flag := range slices.Sorted(maps.Keys(o.Flagged)) {
		fmt.Fprintf(env.Stderr, "  %d windows flagged %s\n", o.Flagged[flag], flag)
	}
	for _, k := range o.FailedCells {
		fmt.Fprintf(env.Stderr, "  failed: %s\n", k)
	}
}

// writeRunReport renders every report of a run's results directory and
// prints where the HTML is and what each step bought; of a run not finished
// (partial), only where the partial report is, since its steps lack windows.
// A report that cannot be rendered loses nothing: the journal is intact and
// `stackbench report DIR` can be run again; the model is then nil.
func writeRunReport(env Env, dir string, partial bool) *report.Model {
	m, err := report.Build(dir)
	if err == nil {
		err = report.WriteAll(dir, m)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: the report could not be written (%v); the journal is intact: stackbench report %s\n", err, dir)
		return nil
	}
	if partial {
		fmt.Fprintf(env.Stdout, "partial report, of the windows measured so far: %s\n", filepath.Join(dir, "report.html"))
		return m
	}
	fmt.Fprintln(env.Stdout)
	for _, line := range report.VerdictLines(m) {
		fmt.Fprintln(env.Stdout, line)
	}
	for _, line := range report.TFBLines(m) {
		fmt.Fprintln(env.Stdout, line)
	}
	printSteps(env.Stdout, m)
	if lines := report.LatencyLines(m); len(lines) > 0 {
		fmt.Fprintln(env.Stdout)
		for _, l := range lines {
			fmt.Fprintln(env.Stdout, l)
		}
	}
	printThresholds(env.Stdout, m)
	printCapacitySteps(env.Stdout, m)
	printProfiling(env.Stdout, m)
	fmt.Fprintf(env.Stdout, "\nreport: %s\n", filepath.Join(dir, "report.html"))
	return m
}

// printSteps prints, per step and route group, how many cases got each
// call and the median estimate, then each case's call with its estimate
// and interval: the terminal never shows a call without what it rests on.
func printSteps(w io.Writer, m *report.Model) {
	if m.Header.ParitySkipped {
		fmt.Fprintln(w, "WARNING: the parity gate was skipped; these stacks were not shown to answer the same contract.")
	}
	if len(m.Groups) == 0 {
		return
	}
	family := "each call on its own"
	switch {
	case m.Header.Family == "run" && m.Header.FamilyCalls > 1:
		family = fmt.Sprintf("false calls controlled over the run's %d calls", m.Header.FamilyCalls)
	case m.Header.Family == "run":
		family = fmt.Sprintf("false calls controlled over the run's calls, of which %d valid", m.Header.FamilyCalls)
	}
	headline := m.Header.Headline()
	fmt.Fprintf(w, "\nWhat each step bought (%s; each call from its intervals alone: %.4g%% for a gain or a loss, %.4g%% for same; minimum effect %g%%; %s):\n",
		analysis.MetricLabel(headline), 100*(1-m.Header.Alpha), 100*(1-stats.SameLevel(m.Header.Alpha)), 100*m.Header.MinEffect, family)
	for _, g := range m.Groups {
		label := "  " + g.From + " → " + g.To
		if g.Kind != "adjacent" {
			label = "  (" + g.Kind + ") " + g.From + " → " + g.To
		}
		if g.Defined == 0 {
			fmt.Fprintf(w, "%s, %s routes, c=%d: no valid comparison\n", label, g.Group, g.Concurrency)
			continue
		}
		noise := ""
		if g.PairedSDPct != nil {
			noise = fmt.Sprintf(", median paired noise %.1f%%", *g.PairedSDPct)
		}
		fmt.Fprintf(w, "%s, %s routes, c=%d: %s (median estimate %+.1f%%%s)\n", label, g.Group, g.Concurrency, report.CallCounts(g.Calls), g.MedianPct, noise)
		for _, s := range m.Steps {
			if s.Kind != g.Kind || s.From != g.From || s.To != g.To || s.Concurrency != g.Concurrency || s.Database != (g.Group == analysis.GroupDatabase) {
				continue
			}
			if c := s.Metric(headline); c != nil {
				relaxed := ""
				if len(s.RuleRelaxed) > 0 {
					relaxed = " [" + report.RelaxedMark + ": " + strings.Join(s.RuleRelaxed, "; ") + "]"
				}
				fmt.Fprintf(w, "      %-8s %s%s\n", s.Case, report.CallText(*c), relaxed)
			}
		}
	}
}

// printThresholds prints each threshold's verdict with its median and
// interval.
func printThresholds(w io.Writer, m *report.Model) {
	if len(m.Thresholds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nThresholds (a latency percentile of all the cell's requests, other limits the median of its processes; each with its %.0f%% family interval):\n", 100*report.ThresholdConfidence)
	for _, t := range m.Thresholds {
		fmt.Fprintf(w, "  %s\n", report.ThresholdText(t))
	}
}

// terminalWidth is the width of the terminal on stderr, 0 when it is not one.
func terminalWidth(env Env) int {
	if !env.StderrIsTerminal || env.StderrWidth == nil {
		return 0
	}
	return env.StderrWidth()
}
