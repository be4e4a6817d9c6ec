package pgfix

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// TemplateDatabase is the seeded database that FreshDatabase copies.
const TemplateDatabase = "stackbench_template"

// templateMark is the comment set on the template once it is verified. A
// change to the schema or the seed changes the mark, so old templates are
// rebuilt.
const templateMark = "stackbench saas-slice seed v1: verified"

// templateLockKey serialises EnsureTemplate between processes sharing a
// server (pg_advisory_lock key).
const templateLockKey = 0x5eed_2026

// EnsureTemplate makes sure the server at adminURL has a complete
// TemplateDatabase: it returns at once when the template is marked
// complete, and otherwise (re)creates it, seeds it, verifies it and only
// then marks it. The role of adminURL needs the CREATEDB privilege.
func EnsureTemplate(ctx context.Context, adminURL string) (SeedReport, error) {
	var report SeedReport
	reused, err := ensureTemplate(ctx, adminURL, TemplateDatabase, templateMark, func(ctx context.Context, url string) error {
		var err error
		report, err = Seed(ctx, url)
		return err
	})
	if reused {
		return SeedReport{Users: SeedUsers, Orders: SeedOrders, Reused: true}, err
	}
	return report, err
}

// ensureTemplate makes sure database name on the server at adminURL is a
// template marked with mark: it returns at once (reused) when it is, and
// otherwise (re)creates it empty, calls build on its URL, and only then
// makes it a template and marks it. Processes sharing a server take turns.
func ensureTemplate(ctx context.Context, adminURL, name, mark string, build func(ctx context.Context, url string) error) (reused bool, err error) {
	conn, err := connect(ctx, adminURL)
	if err != nil {
		return false, fmt.Errorf("template: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return false, fmt.Errorf("template: lock: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", templateLockKey)

	got, exists, err := databaseComment(ctx, conn, name)
	if err != nil {
		return false, fmt.Errorf("template: %w", err)
	}
	if exists && got == mark {
		return true, nil
	}
	if exists {
		// A template's name is stackbench's own (stackbench_template,
		// stackbench_tpl_<hash>): one half made by an older version has no
		// mark yet, and is replaced all the same.
		if err := dropDatabase(ctx, conn, name, false); err != nil {
			return false, err
		}
	}
	tmpl := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+tmpl+" TEMPLATE template0"); err != nil {
		return false, fmt.Errorf("template: create database: %w", err)
	}
	if err := markOwned(ctx, conn, name, buildingMark); err != nil {
		return false, fmt.Errorf("template: %w", err)
	}
	tmplURL, err := databaseURL(adminURL, name)
	if err != nil {
		return false, err
	}
	if err := build(ctx, tmplURL); err != nil {
		return false, fmt.Errorf("template: %w", err)
	}
	// No connections to the template from now on: CREATE DATABASE … TEMPLATE
	// fails while anyone is connected to it.
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+tmpl+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"); err != nil {
		return false, fmt.Errorf("template: %w", err)
	}
	// Sessions a build command left open would keep the template busy.
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", name); err != nil {
		return false, fmt.Errorf("template: %w", err)
	}
	if _, err := conn.Exec(ctx, "COMMENT ON DATABASE "+tmpl+" IS '"+strings.ReplaceAll(mark, "'", "''")+"'"); err != nil {
		return false, fmt.Errorf("template: mark complete: %w", err)
	}
	return false, nil
}

// FreshDatabase creates database name as a copy of TemplateDatabase,
// dropping an existing database of that name first (its sessions are
// disconnected), and returns its URL. Call EnsureTemplate first.
func FreshDatabase(ctx context.Context, adminURL, name string) (string, error) {
	return FreshDatabaseFrom(ctx, adminURL, TemplateDatabase, name)
}

// FreshDatabaseFrom is FreshDatabase from the template database template
// (a fixture's, Fixture.TemplateName).
func FreshDatabaseFrom(ctx context.Context, adminURL, template, name string) (string, error) {
	if name == "" || name == template || len(name) > 63 {
		return "", fmt.Errorf("fresh database: invalid name %q", name)
	}
	newURL, err := databaseURL(adminURL, name)
	if err != nil {
		return "", err
	}
	conn, err := connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("fresh database %s: %w", name, err)
	}
	defer conn.Close(context.Background())
	if err := dropDatabase(ctx, conn, name, true); err != nil {
		return "", err
	}
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	// A session that just left the template may still be exiting; retry
	// "being accessed by other users" briefly.
	for attempt := 0; ; attempt++ {
		_, err = conn.Exec(ctx, sql)
		if err == nil || attempt == 20 || !strings.Contains(err.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return "", fmt.Errorf("fresh database %s: %w (did EnsureTemplate run?)", name, err)
	}
	if err := markOwned(ctx, conn, name, copyMark+template); err != nil {
		return "", err
	}
	return newURL, nil
}

// DatabaseExists reports whether the server at adminURL has database name.
func DatabaseExists(ctx context.Context, adminURL, name string) (bool, error) {
	conn, err := connect(ctx, adminURL)
	if err != nil {
		return false, fmt.Errorf("look up database %s: %w", name, err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return false, fmt.Errorf("look up database %s: %w", name, err)
	}
	return exists, nil
}

// DropDatabase drops database name on the server at adminURL if it
// exists, disconnecting its sessions. It refuses (*NotOwnedError) a
// database without stackbench's mark.
func DropDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	defer conn.Close(context.Background())
	return dropDatabase(ctx, conn, name, true)
}

// dropDatabase drops database name if it exists; with requireMark, only
// when it carries stackbench's mark (a *NotOwnedError otherwise).
func dropDatabase(ctx context.Context, conn *pgx.Conn, name string, requireMark bool) error {
	var isTemplate bool
	var comment *string
	err := conn.QueryRow(ctx, "SELECT datistemplate, shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", name).Scan(&isTemplate, &comment)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	if requireMark && (comment == nil || !isOwnedComment(*comment)) {
		e := &NotOwnedError{Database: name, Tables: -1, Verb: "drop"}
		if comment != nil {
			e.Comment = *comment
		}
		return e
	}
	id := pgx.Identifier{name}.Sanitize()
	if isTemplate { // a template cannot be dropped
		if _, err := conn.Exec(ctx, "ALTER DATABASE "+id+" WITH IS_TEMPLATE false"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
	}
	// WITH (FORCE) disconnects its sessions (PostgreSQL 13 and later).
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+id+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// databaseURL returns adminURL with its database replaced by name.
func databaseURL(adminURL, name string) (string, error) {
	u, err := url.Parse(adminURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("database URL %q: want postgres://user:password@host:port/database", Redact(adminURL))
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// Redact hides the password of a database URL (in its user info, or in a
// password or sslpassword query parameter, which pgx reads too), or of a
// key=value DSN ("host=… password=…"), for messages and output.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return dsnPassword.ReplaceAllString(s, "${1}xxxxx")
	}
	if q := u.Query(); u.RawQuery != "" {
		hidden := false
		for k := range q {
			if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
				q[k] = []string{"xxxxx"}
				hidden = true
			}
		}
		if hidden {
			u.RawQuery = q.Encode()
		}
	}
	return u.Redacted()
}

// dsnPassword matches the password of a key=value DSN: a quoted value
// (with \' inside) or a bare word.
var dsnPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]*)`)
