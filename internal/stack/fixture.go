package stack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// Fixture is the pgfix fixture of a custom workload's own database: the
// schema files applied in order, then the setup command, then the seed
// (a SQL file or a command), each command run in the comparison file's
// directory with DATABASE_URL set to the template. Commands log to
// logDir/fixture.log; a failure quotes its tail.
//
// Without a fixture of its own, a built-in workload's database is
// workload.BuiltinFixture's (tfb's tables), nil for the saas-slice seed.
func Fixture(name string, fx *plan.DatabaseFixture, logDir string) *pgfix.Fixture {
	return fixtureWith(name, fx, logDir, nil)
}

// fixtureWith is Fixture with env added to its commands' environment.
func fixtureWith(name string, fx *plan.DatabaseFixture, logDir string, env []string) *pgfix.Fixture {
	if fx == nil {
		return workload.BuiltinFixture(name)
	}
	return &pgfix.Fixture{Name: name, Hash: fx.Hash, Reset: fx.Reset,
		Build: func(ctx context.Context, url string) error {
			for _, f := range fx.Schema {
				if err := applyFile(ctx, url, f); err != nil {
					return fmt.Errorf("schema file %s: %w; fix the file, or apply it by hand to see why", f, err)
				}
			}
			if fx.Setup != "" {
				if err := runFixtureCommand(ctx, fx.Dir, "setup", fx.Setup, url, logDir, env); err != nil {
					return err
				}
			}
			switch {
			case fx.Seed == "":
			case fx.SeedFile:
				if err := applyFile(ctx, url, fx.Seed); err != nil {
					return fmt.Errorf("seed file %s: %w", fx.Seed, err)
				}
			default:
				return runFixtureCommand(ctx, fx.Dir, "seed", fx.Seed, url, logDir, env)
			}
			return nil
		}}
}

func applyFile(ctx context.Context, url, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return pgfix.ExecSQL(ctx, url, string(data))
}

// runFixtureCommand runs a setup or seed command against the template.
func runFixtureCommand(ctx context.Context, dir, what, command, url, logDir string, env []string) error {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	log := filepath.Join(logDir, "fixture.log")
	os.Remove(log)
	// The URL and its parts: a migration tool that takes its connection
	// as host, user and database reads the libpq variables (the stack's
	// own env: entries, after them, win).
	if err := Shell(ctx, dir, command, log, append(append(libpqEnv(url), env...), "DATABASE_URL="+url)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("database %s command %q (in %s) failed: %v\n%s", what, command, dir, err, fileutil.Tail(log, 0))
	}
	return nil
}

// OpenFileDatabase is OpenDatabase for a comparison file: its database
// server, with the file's own fixture when its workload has one.
// Stacks that bring their own database get their own templates
// (EnsureStacks).
func OpenFileDatabase(ctx context.Context, f *plan.File, logDir string, progress func(string)) (*Database, error) {
	return OpenStacksDatabase(ctx, f.Database, pgfix.Options{}, Fixture(f.Workload.Name, f.Fixture, logDir), f.Stacks, logDir, progress)
}
