package pgfix_test

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// connectFrom connects to dsn from the local address 127.0.0.2, a client
// that initdb's loopback rules (127.0.0.1/32, ::1/128) do not admit.
func connectFrom(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: 10 * time.Second}
	cfg.DialFunc = d.DialContext
	return pgx.ConnectConfig(ctx, cfg)
}

// A cluster that listens beyond loopback speaks TLS to the hosts it
// admits, and only TLS: its URL says sslmode=verify-full against its
// throwaway CA, a client without TLS is refused, and a client that trusts
// another CA does not connect.
func TestClusterBeyondLoopbackSpeaksTLSOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgfix.Start(ctx, pgfix.Options{Dir: reachableTempDir(t), Listen: "127.0.0.1,127.0.0.2", Host: "127.0.0.2", Clients: []string{"127.0.0.2"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Destroy(context.Background()) })
	dsn := c.AdminURL()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	root := u.Query().Get("sslrootcert")
	if u.Query().Get("sslmode") != "verify-full" || root == "" || u.Hostname() != "127.0.0.2" {
		t.Fatalf("URL %s: want sslmode=verify-full with a root certificate, at 127.0.0.2", pgfix.Redact(dsn))
	}
	if pem, err := os.ReadFile(root); err != nil || string(pem) != string(c.CACertPEM()) || !strings.Contains(string(pem), "BEGIN CERTIFICATE") {
		t.Fatalf("sslrootcert %s: %v; want the cluster's CA", root, err)
	}

	conn, err := connectFrom(ctx, dsn)
	if err != nil {
		t.Fatalf("connect over TLS with the cluster's URL: %v", err)
	}
	var ssl bool
	if err := conn.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil || !ssl {
		t.Errorf("pg_stat_ssl.ssl = %v, %v; want the session encrypted", ssl, err)
	}
	conn.Close(ctx)

	q := u.Query()
	q.Set("sslmode", "disable")
	q.Del("sslrootcert")
	plain := *u
	plain.RawQuery = q.Encode()
	if conn, err := connectFrom(ctx, plain.String()); err == nil {
		conn.Close(ctx)
		t.Error("a client without TLS was let in")
	} else if !strings.Contains(err.Error(), "pg_hba.conf") {
		t.Errorf("a client without TLS: %v; want pg_hba.conf's refusal", err)
	}

	// A CA of another cluster: the server's certificate does not chain to it.
	other, err := pgfix.Start(ctx, pgfix.Options{Dir: reachableTempDir(t), Listen: "127.0.0.1,127.0.0.2", Host: "127.0.0.2", Clients: []string{"127.0.0.2"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Destroy(context.Background()) })
	wrongCA := filepath.Join(t.TempDir(), "other-ca.crt")
	if err := os.WriteFile(wrongCA, other.CACertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	spoofed, err := pgfix.WithRootCert(dsn, wrongCA)
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := connectFrom(ctx, spoofed); err == nil {
		conn.Close(ctx)
		t.Error("a client trusting another CA connected")
	} else if !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client trusting another CA: %v; want a certificate error", err)
	}
}
