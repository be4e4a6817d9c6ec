package cli

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// execSQL runs statements on the database at url.
func execSQL(t *testing.T, dbURL, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// withDatabase returns adminURL with its database replaced by name.
func withDatabase(t *testing.T, adminURL, name string) string {
	u, err := url.Parse(adminURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// A developer's own database, named in $DATABASE_URL and on a loopback
// server, survives every seed and reset: the environment alone never
// names a target, and a database without stackbench's mark is refused
// with a message that says why.
func TestDBSeedAndResetLeaveAnAppDatabaseAlone(t *testing.T) {
	admin := pgtest.Cluster(t).AdminURL()
	execSQL(t, admin, "DROP DATABASE IF EXISTS myapp")
	execSQL(t, admin, "CREATE DATABASE myapp")
	t.Cleanup(func() { execSQL(t, admin, "DROP DATABASE IF EXISTS myapp WITH (FORCE)") })
	myapp := withDatabase(t, admin, "myapp")
	execSQL(t, myapp, `CREATE TABLE users (id serial PRIMARY KEY, name text);
CREATE TABLE orders (id serial PRIMARY KEY, user_id int, amount numeric);
INSERT INTO users (name) VALUES ('ann'), ('bob');
INSERT INTO orders (user_id, amount) VALUES (1, 1), (2, 2), (1, 3)`)
	intact := func(step string) {
		t.Helper()
		if u, o := queryInt(t, myapp, "SELECT count(*) FROM users"), queryInt(t, myapp, "SELECT count(*) FROM orders"); u != 2 || o != 3 {
			t.Fatalf("after %s: myapp holds %d users and %d orders, want 2 and 3", step, u, o)
		}
	}
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return myapp
		}
		return ""
	}
	for _, verb := range []string{"seed", "reset"} {
		work := t.TempDir()
		code, _, errOut := runMain(t, work, getenv, "db", verb)
		if code == 0 || !strings.Contains(errOut, "never take $DATABASE_URL from the environment") {
			t.Errorf("db %s with DATABASE_URL only: exit %d, stderr %q", verb, code, errOut)
		}
		intact("db " + verb + " with DATABASE_URL")
		code, _, errOut = runMain(t, work, nil, "db", verb, "--database-url", myapp)
		if code == 0 || !strings.Contains(errOut, `refusing to `) || !strings.Contains(errOut, `database "myapp": stackbench did not make it`) {
			t.Errorf("db %s --database-url myapp: exit %d, stderr %q", verb, code, errOut)
		}
		intact("db " + verb + " --database-url")
		// Not this machine: refused before any connection.
		code, _, errOut = runMain(t, work, nil, "db", verb, "--database-url", "postgres://u:secret@192.0.2.7:5432/prod")
		if code != ExitUsage || !strings.Contains(errOut, "not this machine") || !strings.Contains(errOut, "--allow-remote") || strings.Contains(errOut, "secret") {
			t.Errorf("db %s of a remote host: exit %d, stderr %q", verb, code, errOut)
		}
	}

	// An empty database is seeded, marked, and may then be reset.
	execSQL(t, admin, "DROP DATABASE IF EXISTS bench_empty")
	execSQL(t, admin, "CREATE DATABASE bench_empty")
	t.Cleanup(func() { execSQL(t, admin, "DROP DATABASE IF EXISTS bench_empty WITH (FORCE)") })
	empty := withDatabase(t, admin, "bench_empty")
	code, out, errOut := runMain(t, t.TempDir(), nil, "db", "seed", "--database-url", empty)
	if code != 0 || !strings.Contains(out, "50000 users, 200000 orders") {
		t.Fatalf("db seed of an empty database: exit %d\n%s%s", code, out, errOut)
	}
	execSQL(t, empty, "INSERT INTO orders (user_id, amount, currency) VALUES (1, 1, 'EUR')")
	code, out, errOut = runMain(t, t.TempDir(), nil, "db", "reset", "--database-url", empty)
	if code != 0 || queryInt(t, empty, "SELECT count(*) FROM orders") != 200000 {
		t.Errorf("db reset of the database it seeded: exit %d\n%s%s", code, out, errOut)
	}
}
