package stack

import (
	"context"
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
)

// StackFixture is the pgfix fixture of stack s's own database (its
// database: key): its schema files, then its migrate command and its seed
// command run in its dir with its env: and DATABASE_URL set to its
// template; nil when it uses the workload's. Commands log to
// logDir/fixture.log.
func StackFixture(s plan.Stack, logDir string) *pgfix.Fixture {
	if s.Database == nil {
		return nil
	}
	var env []string
	for _, k := range s.EnvOrder {
		env = append(env, k+"="+s.Env[k])
	}
	return fixtureWith("stack "+s.Name, s.Database, logDir, env)
}

// OpenStacksDatabase is OpenFixtureDatabaseWith for stacks that may bring
// their own databases: each such stack's template is built once
// (EnsureStacks), and the workload's (fx, or the saas-slice seed) only
// when a stack uses it.
func OpenStacksDatabase(ctx context.Context, database string, opt pgfix.Options, fx *pgfix.Fixture, stacks []plan.Stack, logDir string, progress func(string)) (*Database, error) {
	var d *Database
	var err error
	if plan.OwnDatabases(stacks) {
		d, err = openServer(ctx, database, opt, progress)
	} else {
		d, err = OpenFixtureDatabaseWith(ctx, database, opt, fx, progress)
	}
	if err != nil {
		return nil, err
	}
	if err := d.EnsureStacks(ctx, stacks, logDir, progress); err != nil {
		d.Close(true)
		return nil, err
	}
	return d, nil
}

// openServer is the server of OpenFixtureDatabaseWith with no template
// built: every stack brings its own.
func openServer(ctx context.Context, database string, opt pgfix.Options, progress func(string)) (*Database, error) {
	d := &Database{AdminURL: database}
	if database == plan.Embedded || database == "" {
		c, err := openCluster(ctx, opt, progress)
		if err != nil {
			return nil, err
		}
		d.Cluster, d.AdminURL = c, c.AdminURL()
	}
	return d, nil
}

// EnsureStacks builds the template of each stack that brings its own
// database, once, before any of its processes starts: its migrations and
// seed never run inside a measured start. Stacks whose databases are
// built alike share one template (pgfix.Fixture.TemplateName).
func (d *Database) EnsureStacks(ctx context.Context, stacks []plan.Stack, logDir string, progress func(string)) error {
	for _, s := range stacks {
		fx := StackFixture(s, logDir)
		if fx == nil {
			continue
		}
		t0 := time.Now()
		reused, err := pgfix.EnsureFixture(ctx, d.AdminURL, *fx)
		if err != nil {
			return fmt.Errorf("build the database of stack %s: %w", s.Name, err)
		}
		if !reused {
			progress(fmt.Sprintf("database: built stack %s's own template in %.1fs", s.Name, time.Since(t0).Seconds()))
		}
		if d.stackTemplates == nil {
			d.stackTemplates = map[string]string{}
		}
		d.stackTemplates[s.Name] = fx.TemplateName()
	}
	return nil
}

// FreshFor is Fresh from stack s's template: its own when it brings one
// (EnsureStacks), else the workload's.
func (d *Database) FreshFor(ctx context.Context, s plan.Stack, name string) (string, error) {
	tmpl, ok := d.stackTemplates[s.Name]
	if !ok {
		tmpl = d.template
	}
	if tmpl == "" {
		return "", fmt.Errorf("stack %s has no database of its own, and the workload's template was not built", s.Name)
	}
	url, err := pgfix.FreshDatabaseFrom(ctx, d.AdminURL, tmpl, name)
	if err != nil {
		return "", fmt.Errorf("copy the template of stack %s: %w", s.Name, err)
	}
	d.made = append(d.made, name)
	return url, nil
}
