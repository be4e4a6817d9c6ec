package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
)

// Database is the server the stacks of a command use: a throwaway embedded
// cluster or the user's own, with the seeded template ready.
type Database struct {
	// AdminURL reaches the server as a user that may create databases.
	AdminURL string
	// Cluster is the embedded cluster, nil for the user's server.
	Cluster *pgfix.Cluster
	// made lists databases made by Fresh, dropped by Close on a user's server.
	made []string
	// template is the database Fresh copies: the saas-slice seed's, or a
	// fixture's.
	template string
	// stackTemplates are the templates of the stacks that bring their
	// own database, by stack name (EnsureStacks).
	stackTemplates map[string]string
}

// OpenDatabase brings up the database of a comparison file: for "embedded",
// a cluster in dir ("" for a temporary one), reusing one left running there
// by a harness that was killed; otherwise the server at the URL. The seeded
// template is made if missing.
func OpenDatabase(ctx context.Context, database, dir string, progress func(string)) (*Database, error) {
	return OpenDatabaseOn(ctx, database, dir, nil, progress)
}

// OpenDatabaseOn is OpenDatabase with the embedded cluster's server on
// cpus (placement: lanes): started with that affinity, or moved to it when
// an earlier harness left it running. A server of the user's is not
// touched.
func OpenDatabaseOn(ctx context.Context, database, dir string, cpus cpuset.Set, progress func(string)) (*Database, error) {
	return OpenFixtureDatabase(ctx, database, dir, cpus, nil, progress)
}

// OpenFixtureDatabase is OpenDatabaseOn with a workload's own fixture
// built into the template instead of the saas-slice seed (nil: the seed).
func OpenFixtureDatabase(ctx context.Context, database, dir string, cpus cpuset.Set, fx *pgfix.Fixture, progress func(string)) (*Database, error) {
	return OpenFixtureDatabaseWith(ctx, database, pgfix.Options{Dir: dir, CPUs: cpus}, fx, progress)
}

// OpenFixtureDatabaseWith is OpenFixtureDatabase with the embedded
// cluster started as opt says (its directory, lane, and where it listens:
// opt.Listen, opt.Host and opt.Clients). A cluster left running in
// opt.Dir that listens elsewhere is stopped and started again there.
func OpenFixtureDatabaseWith(ctx context.Context, database string, opt pgfix.Options, fx *pgfix.Fixture, progress func(string)) (*Database, error) {
	d := &Database{AdminURL: database, template: pgfix.TemplateDatabase}
	if database == plan.Embedded || database == "" {
		c, err := openCluster(ctx, opt, progress)
		if err != nil {
			return nil, err
		}
		d.Cluster, d.AdminURL = c, c.AdminURL()
	}
	t0 := time.Now()
	if fx != nil {
		d.template = fx.TemplateName()
		reused, err := pgfix.EnsureFixture(ctx, d.AdminURL, *fx)
		if err != nil {
			d.Close(true)
			return nil, fmt.Errorf("build the %s database: %w", fx.Name, err)
		}
		if !reused {
			progress(fmt.Sprintf("database: built the %s template in %.1fs", fx.Name, time.Since(t0).Seconds()))
		}
		return d, nil
	}
	rep, err := pgfix.EnsureTemplate(ctx, d.AdminURL)
	if err != nil {
		d.Close(true)
		return nil, fmt.Errorf("seed the template database: %w", err)
	}
	if !rep.Reused {
		progress(fmt.Sprintf("database: seeded %d users and %d orders in %.1fs", rep.Users, rep.Orders, time.Since(t0).Seconds()))
	}
	return d, nil
}

// openCluster attaches to the cluster left running in opt.Dir, or starts
// one (there, or in a temporary directory).
func openCluster(ctx context.Context, opt pgfix.Options, progress func(string)) (*pgfix.Cluster, error) {
	if c, ok := attach(opt.Dir); ok {
		if c.Listens(opt.Listen, opt.Host) {
			progress("database: using the embedded cluster left running in " + opt.Dir)
			if len(opt.CPUs) > 0 {
				if err := c.Pin(opt.CPUs); err != nil {
					return nil, fmt.Errorf("embedded database: move the running cluster to its lane: %w", err)
				}
			}
			return c, nil
		}
		progress("database: the embedded cluster left running in " + opt.Dir + " listens elsewhere: restarting it")
		if err := c.Stop(ctx); err != nil {
			return nil, fmt.Errorf("embedded database: %w", err)
		}
	}
	progress("database: starting an embedded PostgreSQL cluster")
	c, err := pgfix.Start(ctx, opt)
	if err != nil {
		return nil, fmt.Errorf("embedded database: %w", err)
	}
	return c, nil
}

// attach is the cluster left running in dir, if dir names one.
func attach(dir string) (*pgfix.Cluster, bool) {
	if dir == "" {
		return nil, false
	}
	c, err := pgfix.Attach(dir)
	return c, err == nil
}

// CopyName is base, an underscore and eight random hex digits: the name of
// the copy of the seed that one invocation makes (stackbench boot, dx and
// pgo; a parity gate outside a run), so that two of them on one server
// never drop or write each other's copy. Close drops it on a user's server;
// an invocation killed before that leaves it behind (docs/database.md says
// which names to drop).
func CopyName(base string) string {
	b := make([]byte, 4)
	rand.Read(b) // never fails (crypto/rand)
	return base + "_" + hex.EncodeToString(b)
}

// Fresh makes a new database copied from the seeded template (replacing one
// of the same name) and returns its URL.
func (d *Database) Fresh(ctx context.Context, name string) (string, error) {
	url, err := pgfix.FreshDatabaseFrom(ctx, d.AdminURL, d.template, name)
	if err != nil {
		return "", fmt.Errorf("copy the seeded database: %w", err)
	}
	d.made = append(d.made, name)
	return url, nil
}

// Close stops an embedded cluster, removing its directory when remove is
// true, or drops the databases Fresh made on a user's server.
func (d *Database) Close(remove bool) error {
	if d == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if d.Cluster == nil {
		var first error
		for _, name := range d.made {
			if err := pgfix.DropDatabase(ctx, d.AdminURL, name); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	if err := d.Cluster.Stop(ctx); err != nil {
		return err
	}
	if remove {
		// Only a cluster's own directory: what names it may be data (a
		// results directory's embedded-db.path).
		if !pgfix.IsClusterDir(d.Cluster.Dir()) {
			return fmt.Errorf("not removing %s: it holds no cluster.json", d.Cluster.Dir())
		}
		return os.RemoveAll(d.Cluster.Dir())
	}
	return nil
}
