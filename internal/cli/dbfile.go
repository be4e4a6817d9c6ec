package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
)

// dbFile is the comparison file whose workload database db up and seed
// build: --file FILE, else stackbench.yaml in the working directory when
// there is one; nil for the saas-slice seed (no file, or a file of a
// built-in workload whose stacks bring no database).
func dbFile(env Env, path string, given bool) (*plan.File, error) {
	if !given {
		if _, err := os.Stat(path); err != nil {
			return nil, nil
		}
	}
	f, err := plan.LoadEnv(path, env.Getenv)
	if err != nil {
		return nil, err
	}
	if f.Fixture == nil && !hasStackDatabase(f.Stacks) {
		return nil, nil
	}
	return f, nil
}

func hasStackDatabase(stacks []plan.Stack) bool {
	for _, s := range stacks {
		if s.Database != nil {
			return true
		}
	}
	return false
}

// stackDevDatabase is the development database of a stack with its own:
// stackbench_<name>, lowercased, other characters as '_'.
func stackDevDatabase(name string) string {
	return devDatabase + "_" + regexp.MustCompile(`[^a-z0-9_]+`).ReplaceAllString(strings.ToLower(name), "_")
}

// seedFileDatabases (re)creates the development databases of f on the
// cluster c: the workload's own (workload.database), as devDatabase,
// unless every stack brings its own, and a copy of each stack's own
// template as stackDevDatabase; with keep (db up), one that exists is
// kept as it is. It prints one DATABASE_URL line per database, the
// stack's name first for a stack's.
func seedFileDatabases(ctx context.Context, c *pgfix.Cluster, f *plan.File, logDir string, keep bool, env Env) error {
	t0 := time.Now()
	say := func(s string) { fmt.Fprintln(env.Stderr, s) }
	d, err := stack.OpenStacksDatabase(ctx, c.AdminURL(), pgfix.Options{}, stack.Fixture(f.Workload.Name, f.Fixture, logDir), f.Stacks, logDir, say)
	if err != nil {
		return err
	}
	// d names the cluster by its URL, as a server of the user's: the
	// databases it makes stay (Close would drop them); nothing to close.
	build := func(s plan.Stack, name string) error {
		exists, err := pgfix.DatabaseExists(ctx, c.AdminURL(), name)
		if err != nil || (exists && keep) {
			return err
		}
		if exists {
			// One made before databases carried the mark gets it, so
			// that it may be replaced.
			if err := pgfix.MarkOwned(ctx, c.AdminURL(), name); err != nil {
				return err
			}
		}
		_, err = d.FreshFor(ctx, s, name)
		return err
	}
	var lines []string
	if !plan.OwnDatabases(f.Stacks) {
		if err := build(plan.Stack{}, devDatabase); err != nil {
			return err
		}
		lines = append(lines, "DATABASE_URL="+c.URL(devDatabase))
	}
	for _, s := range f.Stacks {
		if s.Database == nil {
			continue
		}
		name := stackDevDatabase(s.Name)
		if err := build(s, name); err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s: DATABASE_URL=%s", s.Name, c.URL(name)))
	}
	fmt.Fprintf(env.Stderr, "the databases of %s ready (%v)\n", filepath.Base(f.Path), time.Since(t0).Round(time.Millisecond))
	fmt.Fprintln(env.Stdout, strings.Join(lines, "\n"))
	return nil
}
