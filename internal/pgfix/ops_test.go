package pgfix_test

import (
	"context"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

func openDB(t *testing.T, url string) *pgfix.DB {
	t.Helper()
	db, err := pgfix.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

func TestResetOrders(t *testing.T) {
	ctx := context.Background()
	url := pgtest.FreshDB(t)
	db, conn := openDB(t, url), connect(t, url)
	seeded, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO orders (user_id, amount, currency)
		SELECT 1 + g % 50000, 19.99, 'USD' FROM generate_series(1, 2000) g`); err != nil {
		t.Fatal(err)
	}
	grown, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if grown.OrdersRows != 202000 || grown.OrdersSizeBytes <= seeded.OrdersSizeBytes {
		t.Fatalf("after inserts: %d rows, %d bytes (seeded %d bytes)", grown.OrdersRows, grown.OrdersSizeBytes, seeded.OrdersSizeBytes)
	}
	t0 := time.Now()
	if err := db.ResetOrders(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("ResetOrders took %v", time.Since(t0).Round(time.Millisecond))
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.OrdersRows != 200000 || st.OrdersSizeBytes >= grown.OrdersSizeBytes {
		t.Errorf("after reset: %d rows, %d bytes; want 200000 rows, fewer than %d bytes",
			st.OrdersRows, st.OrdersSizeBytes, grown.OrdersSizeBytes)
	}
	var id int64
	if err := conn.QueryRow(ctx, `INSERT INTO orders (user_id, amount, currency) VALUES (4242, 19.99, 'USD') RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id != 200001 {
		t.Errorf("first id after reset = %d, want 200001", id)
	}
	if _, err := conn.Exec(ctx, "DELETE FROM orders WHERE id = 17"); err != nil {
		t.Fatal(err)
	}
	if err := db.ResetOrders(ctx); err == nil || !strings.Contains(err.Error(), "re-seed") {
		t.Errorf("reset with a seeded row missing: err = %v, want a re-seed hint", err)
	}
}

// deadTuplesCounted deletes ten orders and waits for the statistics to
// count them dead (they lag: a backend flushes its counts when idle).
func deadTuplesCounted(t *testing.T, db *pgfix.DB, url string) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, url)
	if _, err := conn.Exec(ctx, "DELETE FROM orders WHERE id <= 10"); err != nil {
		t.Fatal(err)
	}
	conn.Exec(ctx, "SELECT pg_stat_force_next_flush()") // PostgreSQL 15+: flush at once
	var st pgfix.Stats
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		if st, err = db.Stats(ctx); err != nil {
			t.Fatal(err)
		}
		if st.OrdersDeadTuples == 10 {
			return
		}
	}
	t.Errorf("after deleting 10 orders: %d dead tuples counted, want 10", st.OrdersDeadTuples)
}

func TestCheckpointAdvancesCounter(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, pgtest.FreshDB(t))
	before, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	// Checkpoint returns once the counter shows it: no waiting here.
	after, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Checkpoints <= before.Checkpoints || after.CheckpointsRequested <= before.CheckpointsRequested {
		t.Errorf("checkpoints %d → %d (requested %d → %d), want an increase", before.Checkpoints, after.Checkpoints,
			before.CheckpointsRequested, after.CheckpointsRequested)
	}
}

func TestStats(t *testing.T) {
	url := pgtest.FreshDB(t)
	db := openDB(t, url)
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.ServerVersionNum < 130000 || !strings.HasPrefix(st.ServerVersion, strconv.Itoa(st.ServerVersionNum/10000)+".") {
		t.Errorf("server version %q (%d)", st.ServerVersion, st.ServerVersionNum)
	}
	if st.OrdersRows != 200000 || st.OrdersSizeBytes < 5<<20 || st.OrdersDeadTuples != 0 {
		t.Errorf("orders: %d rows, %d bytes, %d dead; want the seed's 200,000 and none dead", st.OrdersRows, st.OrdersSizeBytes, st.OrdersDeadTuples)
	}
	deadTuplesCounted(t, db, url)
	for k, want := range map[string]string{"max_connections": "200", "fsync": "on", "TimeZone": "UTC",
		"listen_addresses": "127.0.0.1", "synchronous_commit": "on"} {
		if got := st.Settings[k]; got != want {
			t.Errorf("setting %s = %q, want %q", k, got, want)
		}
	}
	if st.Settings["shared_buffers"] == "" {
		t.Error("shared_buffers not recorded")
	}
}

func TestServerPIDs(t *testing.T) {
	ctx := context.Background()
	c := pgtest.Cluster(t)
	url := pgtest.FreshDB(t)
	db := openDB(t, url)
	var backend int
	if err := connect(t, url).QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	pids, err := db.ServerPIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// postmaster, checkpointer, background writer, walwriter, autovacuum
	// launcher, this backend at least.
	if len(pids) < 5 || pids[0] != c.PostmasterPID() {
		t.Fatalf("ServerPIDs = %v, want the postmaster %d first and its children", pids, c.PostmasterPID())
	}
	if !slices.Contains(pids, backend) {
		t.Errorf("ServerPIDs = %v lacks another session's backend (%d)", pids, backend)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
			t.Errorf("pid %d: %v", pid, err)
		}
	}
}

// TestServerPIDsThroughProxy reaches the server through a TCP relay, as a
// server on another host would be reached: the backend's client port is
// not the connection's own, so no pids are claimed.
func TestServerPIDsThroughProxy(t *testing.T) {
	c := pgtest.Cluster(t)
	proxy := relay(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port())))
	url := strings.Replace(pgtest.FreshDB(t), "127.0.0.1:"+strconv.Itoa(c.Port()), proxy, 1)
	pids, err := openDB(t, url).ServerPIDs(context.Background())
	if err != nil || len(pids) != 0 {
		t.Errorf("through a relay: ServerPIDs = %v, %v; want none, no error", pids, err)
	}
}

// relay listens on a loopback port and copies each connection to target.
func relay(t *testing.T, target string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return l.Addr().String()
}
