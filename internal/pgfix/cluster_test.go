package pgfix_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// reachableTempDir returns a test directory the server account can enter
// when the tests run as root (t.TempDir's parent is 0700).
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// alive reports whether pid runs; a zombie (exited, waiting for init to
// reap it) does not.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	return s[strings.LastIndexByte(s, ')')+2] != 'Z'
}

func portFree(t *testing.T, port int) bool {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func exec1(t *testing.T, url, sql string) {
	t.Helper()
	if _, err := connect(t, url).Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}

// TestClusterLifecycle starts a cluster in a named directory, attaches to
// it, stops it, starts it again on the same port with its data, and
// destroys it, checking that nothing is left running.
func TestClusterLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(reachableTempDir(t), "db")
	var log bytes.Buffer
	c, err := pgfix.Start(ctx, pgfix.Options{Dir: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Destroy(context.Background()) })
	pid, port := c.PostmasterPID(), c.Port()
	if !alive(pid) || port == 0 || !strings.Contains(log.String(), "initdb") {
		t.Fatalf("started: pid %d alive=%v, port %d, log %q", pid, alive(pid), port, log.String())
	}
	s := c.Settings()
	if s["listen_addresses"] != "127.0.0.1" || s["unix_socket_directories"] != "" || s["port"] != strconv.Itoa(port) || s["fsync"] != "on" {
		t.Errorf("settings %v", s)
	}
	if u := c.URL("postgres"); !strings.HasPrefix(u, "postgres://stackbench:") || !strings.HasSuffix(u, "@127.0.0.1:"+strconv.Itoa(port)+"/postgres?sslmode=disable") {
		t.Errorf("URL = %q", u)
	}
	data := filepath.Join(dir, "data")
	if fi, err := os.Stat(data); err != nil {
		t.Fatal(err)
	} else if st := fi.Sys().(*syscall.Stat_t); os.Geteuid() == 0 && st.Uid == 0 {
		t.Errorf("running as root, the data directory is owned by root; want the postgres account")
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres.log")); err != nil {
		t.Errorf("server log: %v", err)
	}
	exec1(t, c.AdminURL(), "CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)")
	checkTemplateRebuilt(t, c.AdminURL())

	if _, err := pgfix.Start(ctx, pgfix.Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second Start on a running dir: %v", err)
	}
	a, err := pgfix.Attach(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.PostmasterPID() != pid || a.URL("x") != c.URL("x") {
		t.Errorf("Attach: pid %d url %s; want %d %s", a.PostmasterPID(), a.URL("x"), pid, c.URL("x"))
	}

	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if alive(pid) || !portFree(t, port) {
		t.Fatalf("after Stop: postmaster %d alive=%v, port %d free=%v", pid, alive(pid), port, portFree(t, port))
	}
	if _, err := pgfix.Attach(dir); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("Attach to a stopped cluster: %v", err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}

	c2, err := pgfix.Start(ctx, pgfix.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if c2.Port() != port {
		t.Errorf("restart: port %d, want the previous %d", c2.Port(), port)
	}
	exec1(t, c2.AdminURL(), "DO $$ BEGIN IF (SELECT x FROM kept) <> 7 THEN RAISE 'lost'; END IF; END $$")
	if rep, err := pgfix.EnsureTemplate(ctx, c2.AdminURL()); err != nil || !rep.Reused {
		t.Errorf("EnsureTemplate after a restart: %+v, %v; want the kept template reused", rep, err)
	}
	pid2 := c2.PostmasterPID()
	if err := c2.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if alive(pid2) || !portFree(t, port) {
		t.Errorf("after Destroy: postmaster alive=%v, port free=%v", alive(pid2), portFree(t, port))
	}
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		t.Errorf("Destroy removed a directory the user named: %v", err)
	}
}

// checkTemplateRebuilt leaves a half-made template (no completion mark),
// as a seed interrupted by a crash would, and checks that EnsureTemplate
// rebuilds it, then reuses it.
func checkTemplateRebuilt(t *testing.T, adminURL string) {
	t.Helper()
	ctx := context.Background()
	if _, err := pgfix.FreshDatabase(ctx, adminURL, "early"); err == nil || !strings.Contains(err.Error(), "EnsureTemplate") {
		t.Errorf("FreshDatabase before EnsureTemplate: %v", err)
	}
	exec1(t, adminURL, "CREATE DATABASE "+pgfix.TemplateDatabase)
	rep, err := pgfix.EnsureTemplate(ctx, adminURL)
	if err != nil || rep.Reused || rep.Orders != pgfix.SeedOrders {
		t.Fatalf("EnsureTemplate over a half-made template: %+v, %v; want a new seed", rep, err)
	}
	if rep, err := pgfix.EnsureTemplate(ctx, adminURL); err != nil || !rep.Reused {
		t.Errorf("second EnsureTemplate: %+v, %v; want the template reused", rep, err)
	}
	url, err := pgfix.FreshDatabase(ctx, adminURL, "copy")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := connect(t, url).QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&n); err != nil || n != pgfix.SeedOrders {
		t.Errorf("copy of the rebuilt template: %d orders, %v", n, err)
	}
}

// TestTemporaryClusterIsRemoved checks Destroy of a cluster in a temporary
// directory: no process, no port, no directory left.
func TestTemporaryClusterIsRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := pgfix.Start(ctx, pgfix.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid, port, dir := c.PostmasterPID(), c.Port(), c.Dir()
	children := childPIDs(pid)
	if err := c.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if alive(pid) || !portFree(t, port) {
		t.Errorf("after Destroy: postmaster alive=%v, port %d free=%v", alive(pid), port, portFree(t, port))
	}
	for _, p := range children {
		if alive(p) {
			t.Errorf("server child %d still running", p)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left: %v", dir, err)
	}
}

// childPIDs lists the processes whose parent is pid, from /proc.
func childPIDs(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(e.Name())
			out = append(out, n)
		}
	}
	return out
}

// TestUnreachableDirAsRoot checks that, as root, a directory the postgres
// account cannot enter is refused with a message saying what to do.
func TestUnreachableDirAsRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db") // t.TempDir's parent is 0700 root
	c, err := pgfix.Start(context.Background(), pgfix.Options{Dir: dir})
	if os.Geteuid() != 0 {
		if err != nil {
			t.Fatalf("as an ordinary user any own directory works: %v", err)
		}
		if err := c.Destroy(context.Background()); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "cannot enter") || !strings.Contains(err.Error(), "--dir") {
		t.Errorf("Start in %s as root: err = %v, want a 'cannot enter' error suggesting --dir", dir, err)
	}
}

// TestStartOnBusyPort asks for a port another process holds: Start fails
// saying so, and leaves no server and no temporary directory behind.
func TestStartOnBusyPort(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	var log bytes.Buffer
	c, err := pgfix.Start(context.Background(), pgfix.Options{Port: port, Log: &log})
	if err == nil {
		c.Destroy(context.Background())
		t.Fatalf("Start on busy port %d succeeded", port)
	}
	if !strings.Contains(err.Error(), "port "+strconv.Itoa(port)) {
		t.Errorf("error does not name the port: %v", err)
	}
	// "pgfix: starting PostgreSQL in DIR on 127.0.0.1:PORT"
	_, rest, ok := strings.Cut(log.String(), "starting PostgreSQL in ")
	dir, _, _ := strings.Cut(rest, " on 127.0.0.1:")
	if !ok || dir == "" {
		t.Fatalf("no start line in the log: %q", log.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left after a failed Start: %v", dir, err)
	}
}
