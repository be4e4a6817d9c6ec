package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stackbench/stackbench/internal/boot"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
)

func init() {
	register(Command{Name: "boot", Short: "cold starts: boot time, first database request, idle memory", Order: 40, Run: runBoot})
}

const bootSynopsis = "[-f FILE] [-n N] [--stacks a,b] [-o text|json]"

// bootDatabase is the database the boot suite's stacks use: a fresh copy of
// the seeded template.
const bootDatabase = "stackbench_boot"

func runBoot(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("boot", bootSynopsis, env)
	file := fs.String("f", "stackbench.yaml", "comparison file")
	n := fs.Int("n", 0, "measured cold starts per stack (default: the profile's boot_starts, or 10 when that is 0)")
	stacks := fs.String("stacks", "", "only these stacks, comma-separated (they keep the file's order)")
	output := fs.String("o", "text", "output: text or json")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q; name the file with -f", rest[0])
	}
	if *output != "text" && *output != "json" {
		return usagef("-o %s: write -o text or -o json", *output)
	}
	if *n < 0 || *n > 1000 {
		return usagef("-n %d: give between 1 and 1000 cold starts per stack", *n)
	}
	f, err := loadComparison(env, *file)
	if err != nil {
		return err
	}
	p, err := resolvePlan(f, plan.Overrides{Stacks: commaList(*stacks)})
	if err != nil {
		return err
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
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
	if err := buildForBoot(ctx, p.Stacks, logDir, progress); err != nil {
		return err
	}
	dbURL, teardown, err := bootDatabaseUp(ctx, f, progress)
	if err != nil {
		return err
	}
	res, err := boot.Run(ctx, bootStacks(f, p.Stacks, dbURL, logDir), boot.Options{Starts: starts, Request: first, Progress: progress})
	teardown()
	if err != nil {
		return fmt.Errorf("%w\nthe stacks' logs are in %s", err, logDir)
	}
	os.RemoveAll(logDir)
	if *output == "json" {
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

// bootStacks gives each stack what parity gives it (stackEnv); the boot
// engine adds PORT, a new one for every start.
func bootStacks(f *plan.File, stacks []plan.Stack, dbURL, logDir string) []boot.Stack {
	var out []boot.Stack
	for _, s := range stacks {
		var env []string
		for _, kv := range stackEnv(f, s, 0, dbURL) {
			if !strings.HasPrefix(kv, "PORT=") {
				env = append(env, kv)
			}
		}
		out = append(out, boot.Stack{
			Name: s.Name, Dir: s.Dir, Command: s.Start, Env: env, HealthPath: s.Health,
			LogPath: filepath.Join(logDir, s.Name+".log"),
		})
	}
	return out
}

// buildForBoot runs each stack's build command, so that the cold starts
// start what the file describes.
func buildForBoot(ctx context.Context, stacks []plan.Stack, logDir string, progress func(string)) error {
	for _, s := range stacks {
		if s.Build == "" {
			continue
		}
		progress(fmt.Sprintf("build %s: %s", s.Name, s.Build))
		logPath := filepath.Join(logDir, s.Name+".build.log")
		if err := shellTo(ctx, s.Dir, s.Build, logPath); err != nil {
			return fmt.Errorf("build stack %q (%s, in %s): %v\n%s\nfix the build, or run it by hand in that directory to see why",
				s.Name, s.Build, s.Dir, err, fileTail(logPath, 2000))
		}
	}
	return nil
}

// bootDatabaseUp makes the database the stacks use: a fresh copy of the
// seeded template, on a throwaway embedded cluster or the user's server.
// teardown removes what it made. A workload without database cases gets
// no database.
func bootDatabaseUp(ctx context.Context, f *plan.File, progress func(string)) (url string, teardown func(), err error) {
	if !f.Workload.NeedsDatabase {
		return "", func() {}, nil
	}
	adminURL := f.Database
	var cluster *pgfix.Cluster
	if adminURL == plan.Embedded || adminURL == "" {
		progress("database: starting an embedded PostgreSQL cluster")
		cluster, err = pgfix.Start(ctx, pgfix.Options{})
		if err != nil {
			return "", nil, fmt.Errorf("embedded database: %w", err)
		}
		adminURL = cluster.AdminURL()
	}
	teardown = func() {
		tctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if cluster != nil {
			if err := cluster.Destroy(tctx); err != nil {
				progress("warning: removing the embedded database: " + err.Error())
			}
			return
		}
		if err := pgfix.DropDatabase(tctx, adminURL, bootDatabase); err != nil {
			progress("warning: dropping database " + bootDatabase + ": " + err.Error())
		}
	}
	if _, err := pgfix.EnsureTemplate(ctx, adminURL); err != nil {
		teardown()
		return "", nil, fmt.Errorf("seed the template database: %w", err)
	}
	url, err = pgfix.FreshDatabase(ctx, adminURL, bootDatabase)
	if err != nil {
		teardown()
		return "", nil, fmt.Errorf("copy the seeded database: %w", err)
	}
	return url, teardown, nil
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
