package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stackbench/stackbench/internal/pgfix"
)

// queryInt runs a query returning one integer on the database at url.
func queryInt(t *testing.T, url, sql string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestDBCommandEndToEnd drives a development cluster through every verb,
// in the default directory .stackbench/db of a fresh working directory.
func TestDBCommandEndToEnd(t *testing.T) {
	work := t.TempDir()
	// As root the server runs as "postgres", which must reach the directory.
	for _, d := range []string{filepath.Dir(work), work} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	dbDir := filepath.Join(work, ".stackbench", "db")
	t.Cleanup(func() {
		if c, err := pgfix.Attach(dbDir); err == nil {
			c.Stop(context.Background())
		}
	})

	code, out, errOut := runMain(t, work, nil, "db", "up")
	if code != 0 || !strings.HasPrefix(out, "DATABASE_URL=postgres://") || !strings.Contains(errOut, "initdb") {
		t.Fatalf("db up: exit %d\n%s%s", code, out, errOut)
	}
	url := strings.TrimPrefix(strings.TrimSpace(out), "DATABASE_URL=")
	if n := queryInt(t, url, "SELECT count(*) FROM users"); n != 50000 {
		t.Errorf("users = %d, want 50000", n)
	}
	queryInt(t, url, "WITH i AS (INSERT INTO orders (user_id, amount, currency) SELECT 4242, 1, 'USD' FROM generate_series(1,3) RETURNING 1) SELECT count(*) FROM i")

	code, out, errOut = runMain(t, work, nil, "db", "status")
	for _, want := range []string{"cluster     running", "users       50000 rows", "orders      200003 rows", "3 orders inserted", "max_connections=200"} {
		if !strings.Contains(out, want) {
			t.Errorf("db status lacks %q: exit %d\n%s%s", want, code, out, errOut)
		}
	}

	code, out, errOut = runMain(t, work, nil, "db", "reset")
	if code != 0 || !strings.Contains(out, "orders reset to 200000 rows") {
		t.Errorf("db reset: exit %d\n%s%s", code, out, errOut)
	}
	if n := queryInt(t, url, "SELECT count(*) FROM orders"); n != 200000 {
		t.Errorf("orders after reset = %d", n)
	}
	if id := queryInt(t, url, "INSERT INTO orders (user_id, amount, currency) VALUES (1, 1, 'EUR') RETURNING id"); id != 200001 {
		t.Errorf("next id after reset = %d, want 200001", id)
	}

	code, out, errOut = runMain(t, work, nil, "db", "up")
	if code != 0 || strings.TrimSpace(out) != "DATABASE_URL="+url || !strings.Contains(errOut, "already running") {
		t.Errorf("second db up: exit %d\n%s%s", code, out, errOut)
	}

	// A server given by URL: seed replaces the tables in that database.
	code, out, errOut = runMain(t, work, nil, "db", "seed", "--database-url", url)
	if code != 0 || !strings.Contains(out, "50000 users, 200000 orders") || strings.Contains(out, url) {
		t.Errorf("db seed --database-url: exit %d\n%s%s", code, out, errOut)
	}
	if n := queryInt(t, url, "SELECT count(*) FROM orders"); n != 200000 {
		t.Errorf("orders after seed = %d", n)
	}
	// DATABASE_URL from the environment, --dir not given.
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return url
		}
		return ""
	}
	code, out, errOut = runMain(t, work, getenv, "db", "status")
	if code != 0 || strings.Contains(out, "cluster ") || !strings.Contains(out, "orders      200000 rows") {
		t.Errorf("db status with DATABASE_URL: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = runMain(t, work, nil, "db", "seed")
	if code != 0 || !strings.Contains(out, "re-seeded database stackbench") {
		t.Errorf("db seed: exit %d\n%s%s", code, out, errOut)
	}

	c, err := pgfix.Attach(dbDir)
	if err != nil {
		t.Fatal(err)
	}
	pid, port := c.PostmasterPID(), c.Port()
	code, out, errOut = runMain(t, work, nil, "db", "down")
	if code != 0 || !strings.Contains(out, "stopped PostgreSQL (pid "+strconv.Itoa(pid)+")") {
		t.Errorf("db down: exit %d\n%s%s", code, out, errOut)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); !strings.Contains(string(b), ") Z ") {
			t.Errorf("postmaster %d still running after db down", pid)
		}
	}
	if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err != nil {
		t.Errorf("port %d still taken after db down: %v", port, err)
	} else {
		l.Close()
	}

	code, out, _ = runMain(t, work, nil, "db", "status")
	if code != 1 || !strings.Contains(out, "not running") {
		t.Errorf("db status after down: exit %d\n%s", code, out)
	}
	code, _, errOut = runMain(t, work, nil, "db", "reset")
	if code != ExitNotMeasured || !strings.Contains(errOut, "stackbench db up") {
		t.Errorf("db reset after down: exit %d\n%s", code, errOut)
	}
	code, out, _ = runMain(t, work, nil, "db", "down")
	if code != 0 || !strings.Contains(out, "no cluster running") {
		t.Errorf("second db down: exit %d\n%s", code, out)
	}
}

func TestDBUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"db"}, "name what to do: stackbench db up|seed"},
		{[]string{"db", "frobnicate"}, `unknown verb "frobnicate"; write one of up, seed, reset, status, down`},
		{[]string{"db", "up", "down"}, `unexpected argument "down" after db up`},
		{[]string{"db", "up", "--database-url", "postgres://x@127.0.0.1/db"}, "--database-url is for seed, reset and status"},
		{[]string{"db", "status", "--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
	} {
		code, _, errOut := runMain(t, t.TempDir(), nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func TestDBWithoutACluster(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, ".stackbench", "db")
	for _, verb := range []string{"seed", "reset"} {
		code, _, errOut := runMain(t, work, nil, "db", verb)
		if want := "stackbench db: no stackbench cluster in " + dir + "; start one with: stackbench db up --dir " + dir + "\n"; code != ExitNotMeasured || errOut != want {
			t.Errorf("db %s: code %d, stderr %q; want 4 and %q", verb, code, errOut, want)
		}
	}
}
