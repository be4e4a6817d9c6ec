package pgfix

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ownedPrefix begins the comment stackbench puts on every database it
// makes (templates, copies, a database it seeded): the mark that says the
// database is stackbench's own. Only a database that carries it is ever
// dropped, re-seeded or reset.
const ownedPrefix = "stackbench"

// copyMark is the comment on a copy of a template.
const copyMark = "stackbench copy of "

// seededMark is the comment Seed leaves on the database it seeded.
const seededMark = "stackbench saas-slice seed"

// buildingMark is the comment on a template while it is built; the
// template's own mark replaces it once the build is verified.
const buildingMark = "stackbench template, being built"

// isOwnedComment reports whether a database comment is stackbench's mark.
func isOwnedComment(comment string) bool { return strings.HasPrefix(comment, ownedPrefix) }

// NotOwnedError is the refusal to change a database stackbench did not
// make.
type NotOwnedError struct {
	Database string
	// Comment is the database's comment ("" when it has none).
	Comment string
	// Tables counts the tables of the database outside the system schemas
	// (-1 when not counted).
	Tables int
	// Verb is what was refused ("drop", "re-seed", "reset").
	Verb string
}

func (e *NotOwnedError) Error() string {
	holds := ""
	if e.Tables >= 0 {
		holds = fmt.Sprintf(", and it holds %d tables", e.Tables)
	}
	mark := "it has no comment"
	if e.Comment != "" {
		mark = fmt.Sprintf("its comment is %q", truncate(e.Comment, 60))
	}
	return fmt.Sprintf("refusing to %s database %q: stackbench did not make it (%s, not stackbench's mark%s); "+
		"stackbench changes only databases it made. Point it at an empty database of its own "+
		"(createdb stackbench_dev; then --database-url postgres://…/stackbench_dev) or use the embedded cluster (stackbench db up)",
		e.Verb, e.Database, mark, holds)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// markOwned sets stackbench's mark (mark, which must begin with
// ownedPrefix) on database name. The role needs to own the database.
func markOwned(ctx context.Context, conn *pgx.Conn, name, mark string) error {
	if !isOwnedComment(mark) {
		return fmt.Errorf("mark database %s: %q is not a stackbench mark", name, mark)
	}
	sql := "COMMENT ON DATABASE " + pgx.Identifier{name}.Sanitize() + " IS '" + strings.ReplaceAll(mark, "'", "''") + "'"
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("mark database %s as stackbench's: %w (the role must own the database)", name, err)
	}
	return nil
}

// MarkOwned marks database name on the server at adminURL as
// stackbench's own. Call it only for a database in a cluster stackbench
// made (the development cluster of "stackbench db up"), whose databases
// are all stackbench's.
func MarkOwned(ctx context.Context, adminURL, name string) error {
	conn, err := connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return markOwned(ctx, conn, name, copyMark+"the development cluster")
}

// databaseComment returns the comment of database name; exists is false
// when there is no such database.
func databaseComment(ctx context.Context, conn *pgx.Conn, name string) (comment string, exists bool, err error) {
	var c *string
	err = conn.QueryRow(ctx, `SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1`,
		name).Scan(&c)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up database %s: %w", name, err)
	}
	if c != nil {
		comment = *c
	}
	return comment, true, nil
}

// Ownership is what CheckOwned found about the database of a URL.
type Ownership struct {
	Database string
	Comment  string
	// Owned is true when the database carries stackbench's mark.
	Owned bool
	// Tables counts the tables outside the system schemas.
	Tables int
}

// Inspect reads the mark and the table count of the database at url.
func Inspect(ctx context.Context, url string) (Ownership, error) {
	conn, err := connect(ctx, url)
	if err != nil {
		return Ownership{}, err
	}
	defer conn.Close(context.Background())
	return inspect(ctx, conn)
}

func inspect(ctx context.Context, conn *pgx.Conn) (Ownership, error) {
	var o Ownership
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&o.Database); err != nil {
		return o, fmt.Errorf("inspect database: %w", err)
	}
	comment, _, err := databaseComment(ctx, conn, o.Database)
	if err != nil {
		return o, err
	}
	o.Comment, o.Owned = comment, isOwnedComment(comment)
	err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`).Scan(&o.Tables)
	if err != nil {
		return o, fmt.Errorf("inspect database %s: %w", o.Database, err)
	}
	return o, nil
}

// CheckOwned returns a *NotOwnedError naming verb unless the database at
// url carries stackbench's mark.
func CheckOwned(ctx context.Context, url, verb string) error {
	o, err := Inspect(ctx, url)
	if err != nil {
		return err
	}
	if !o.Owned {
		return &NotOwnedError{Database: o.Database, Comment: o.Comment, Tables: o.Tables, Verb: verb}
	}
	return nil
}
