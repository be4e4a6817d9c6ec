package agent

import (
	"context"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// The agent starts an embedded cluster that answers, with its password
// and not without, over TLS verified against the CA it returns, at an
// address other than 127.0.0.1; sample measures its
// processes; it is stopped and removed when the agent's stdin closes.
// (A client on another host, which initdb's rules would refuse, is
// internal/run's TestDatabaseOnItsOwnHost.)
func TestDatabaseOnTheAgentsHost(t *testing.T) {
	s := startSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.client.StartDatabase(ctx, DatabaseSpec{}); err == nil {
		t.Fatal("a database without a host address started")
	}
	if _, err := s.client.StartDatabase(ctx, DatabaseSpec{Host: "127.0.0.2"}); os.Getenv("SSH_CONNECTION") == "" && (err == nil || !strings.Contains(err.Error(), "no client host named")) {
		t.Fatalf("a database listening everywhere for no host in particular: %v", err)
	}
	info, err := s.client.StartDatabase(ctx, DatabaseSpec{Host: "127.0.0.2", Clients: []string{"127.0.0.2"}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(info.AdminURL)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	if u.Hostname() != "127.0.0.2" || u.Port() != strconv.Itoa(info.Port) || len(pw) < 16 || info.Settings["listen_addresses"] != "*" {
		t.Fatalf("database %+v; want a URL at 127.0.0.2 with a random password, listening on every address", info)
	}
	if u.Query().Get("sslmode") != "verify-full" || !strings.Contains(info.CACert, "BEGIN CERTIFICATE") || info.Settings["ssl"] != "on" {
		t.Fatalf("database URL %s, CA %q, ssl %q; want TLS verified against the CA it returns", u.Query(), info.CACert, info.Settings["ssl"])
	}
	if _, err := s.client.StartDatabase(ctx, DatabaseSpec{Host: "127.0.0.2"}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("a second database = %v; want a refusal", err)
	}

	conn, err := pgx.Connect(ctx, info.AdminURL)
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	conn.Close(ctx)
	wrong := *u
	wrong.User = url.UserPassword(u.User.Username(), "not-the-password")
	if conn, err := pgx.Connect(ctx, wrong.String()); err == nil {
		conn.Close(ctx)
		t.Fatal("a wrong password was let in")
	}

	from := time.Now().Add(20 * time.Millisecond)
	smp, err := s.client.Sample(ctx, DatabaseProcess, from, from.Add(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if smp.RSSPeakBytes <= 0 || smp.Wall <= 0 {
		t.Fatalf("sample of the database %+v; want its memory", smp)
	}
	if _, _, err := s.client.Start(ctx, StartSpec{Name: DatabaseProcess, Command: "true"}); err == nil {
		t.Fatal("a process took the database's name")
	}

	s.stdin.Close()
	if err := <-s.served; err != nil {
		t.Fatal(err)
	}
	s.served <- nil // for the cleanup
	if local.Alive(info.PostmasterPID) {
		t.Fatalf("postmaster %d runs after the agent's stdin closed", info.PostmasterPID)
	}
	if _, err := os.Stat(info.Dir); err == nil {
		t.Fatalf("the cluster's directory %s is still there", info.Dir)
	}
}
