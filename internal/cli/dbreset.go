package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
)

// fileReset is one database db reset puts back: its name in the output,
// its URL, and the reset: statements of the file that built it.
type fileReset struct {
	what, url  string
	statements []string
	key        string // where the statements go in the file
}

// resetFileDatabases is db reset for a comparison file with databases of
// its own: each runs its own reset: statements (workload.database.reset
// on the workload's database, each stack's database.reset on that
// stack's), never the saas-slice's orders reset, which their schemas do
// not have. A database whose file part has no reset: is named and left
// as it is. With --database-url, the one database there must be the
// workload's.
func resetFileDatabases(ctx context.Context, t dbTarget, env Env) error {
	f := t.file
	name := filepath.Base(f.Path)
	var todo []fileReset
	switch {
	case t.url != "":
		if hasStackDatabase(f.Stacks) || f.Fixture == nil {
			return usagef("db reset --database-url resets one database, and the stacks of %s bring databases of their own: "+
				"reset the embedded cluster's (leave out --database-url), or run that stack's database.reset statements on the URL yourself", name)
		}
		todo = append(todo, fileReset{what: pgfix.Redact(t.url), url: t.url, statements: f.Fixture.Reset, key: "workload.database.reset"})
	default:
		c, err := pgfix.Attach(t.dir)
		if err != nil {
			return withDatabaseURLHint(err, env)
		}
		if err := c.CheckDataDirectory(ctx); err != nil {
			return err
		}
		if !plan.OwnDatabases(f.Stacks) && f.Fixture != nil {
			todo = append(todo, fileReset{what: "database " + devDatabase, url: c.URL(devDatabase), statements: f.Fixture.Reset, key: "workload.database.reset"})
		}
		for _, s := range f.Stacks {
			if s.Database != nil {
				db := stackDevDatabase(s.Name)
				todo = append(todo, fileReset{what: "stack " + s.Name + "'s database " + db, url: c.URL(db),
					statements: s.Database.Reset, key: "database.reset of stack " + s.Name})
			}
		}
	}
	for _, r := range todo {
		if len(r.statements) == 0 {
			fmt.Fprintf(env.Stdout, "%s: left as it is (%s has no %s; add one, e.g. reset: \"TRUNCATE comments\")\n", r.what, name, r.key)
			continue
		}
		// Only a database stackbench made is changed.
		if err := pgfix.CheckOwned(ctx, r.url, "reset"); err != nil {
			return fmt.Errorf("%s: %w", r.what, err)
		}
		t0 := time.Now()
		db, err := pgfix.Open(ctx, r.url)
		if err != nil {
			return err
		}
		err = db.Reset(ctx, r.statements)
		db.Close()
		if err != nil {
			return fmt.Errorf("%s: %w; fix %s in %s", r.what, err, r.key, name)
		}
		fmt.Fprintf(env.Stdout, "%s: reset by %s's %s (%s) in %v\n", r.what, name, r.key, strings.Join(r.statements, "; "), time.Since(t0).Round(time.Millisecond))
	}
	return nil
}
