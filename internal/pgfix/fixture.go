package pgfix

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Fixture is a database of a workload's own: how its template is built
// once, and how it is reset before a window of a case that inserts. The
// saas-slice seed is the built-in one (EnsureTemplate, ResetOrders).
type Fixture struct {
	// Name is the workload's, for messages.
	Name string
	// Hash identifies everything that builds the template (files and
	// commands): a template built from another hash is built again.
	Hash string
	// Build fills the new, empty template database at url.
	Build func(ctx context.Context, url string) error
	// Reset holds SQL statements run one by one (VACUUM allowed) before
	// each window of a case that inserts.
	Reset []string
}

// TemplateName is the fixture's template database: one per hash, so two
// workloads (or two versions of one) sharing a server keep their own.
func (f Fixture) TemplateName() string {
	h := f.Hash
	if len(h) > 16 {
		h = h[:16]
	}
	return "stackbench_tpl_" + h
}

// EnsureFixture builds the fixture's template on the server at adminURL
// unless one marked with its hash is there already (reused).
func EnsureFixture(ctx context.Context, adminURL string, f Fixture) (reused bool, err error) {
	return ensureTemplate(ctx, adminURL, f.TemplateName(), "stackbench fixture "+f.Name+" "+f.Hash+": built", f.Build)
}

// ExecSQL runs a script (several statements; a migration file) in one
// implicit transaction on the database at url.
func ExecSQL(ctx context.Context, url, script string) error {
	conn, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, script, pgx.QueryExecModeSimpleProtocol)
	return err
}

// Reset runs statements one by one, each in its own implicit transaction
// (so VACUUM may be one of them).
func (db *DB) Reset(ctx context.Context, statements []string) error {
	for _, s := range statements {
		if _, err := db.conn.Exec(ctx, s, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("reset: %s: %w", s, err)
		}
	}
	return nil
}
