package pgfix

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DB is one connection to a seeded database, for the fixture operations
// the run protocol calls between windows. A DB is not safe for concurrent
// use.
type DB struct {
	conn       *pgx.Conn
	versionNum int // server_version_num, e.g. 150018
	// seeded is true when the database has the saas-slice tables (users
	// and orders), whose figures Stats reads.
	seeded bool
}

// Open connects to the seeded database at url.
func Open(ctx context.Context, url string) (*DB, error) {
	conn, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	db := &DB{conn: conn}
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int, to_regclass('users') IS NOT NULL AND to_regclass('orders') IS NOT NULL").Scan(&db.versionNum, &db.seeded); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("read server version: %w", err)
	}
	return db, nil
}

// Close closes the connection.
func (db *DB) Close() { db.conn.Close(context.Background()) }

// ResetOrders puts the orders table back to its seeded state: rows with
// id > SeedOrders are deleted, the id sequence is set so the next id is
// SeedOrders+1, and VACUUM (FULL, ANALYZE) rewrites the table so that its
// size and dead tuples do not depend on what ran before.
func (db *DB) ResetOrders(ctx context.Context) error {
	if _, err := db.conn.Exec(ctx, "DELETE FROM orders WHERE id > $1", SeedOrders); err != nil {
		return fmt.Errorf("reset orders: %w", err)
	}
	if _, err := db.conn.Exec(ctx, "SELECT setval('orders_id_seq', $1)", SeedOrders); err != nil {
		return fmt.Errorf("reset orders: sequence: %w", err)
	}
	if _, err := db.conn.Exec(ctx, "VACUUM (FULL, ANALYZE) orders"); err != nil {
		return fmt.Errorf("reset orders: vacuum: %w", err)
	}
	var n int64
	if err := db.conn.QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&n); err != nil {
		return fmt.Errorf("reset orders: count: %w", err)
	}
	if n != SeedOrders {
		return fmt.Errorf("reset orders: %d rows remain, want %d: seeded rows were deleted; "+
			"re-seed (stackbench db seed)", n, SeedOrders)
	}
	return nil
}

// Checkpoint runs CHECKPOINT and returns once the server's count of
// requested checkpoints shows it. The checkpointer publishes its counters
// only after waking the backend that asked, so without this wait a
// checkpoint taken before a window could be counted as one during it. (The
// requested count, not the total: a timed checkpoint finishing meanwhile
// must not end the wait early.)
func (db *DB) Checkpoint(ctx context.Context) error {
	_, before, err := db.checkpointCounts(ctx)
	if err != nil {
		return err
	}
	if _, err := db.conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint: %w (the role needs superuser or pg_checkpoint)", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, after, err := db.checkpointCounts(ctx)
		if err != nil {
			return err
		}
		if after > before {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("checkpoint: the requested-checkpoint counter stayed at %d for 5s after CHECKPOINT", after)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// checkpointCounts returns the timed and requested checkpoints since the
// statistics were last reset.
func (db *DB) checkpointCounts(ctx context.Context) (timed, requested int64, err error) {
	q := "SELECT checkpoints_timed, checkpoints_req FROM pg_stat_bgwriter"
	if db.versionNum >= 170000 { // the counters moved to pg_stat_checkpointer
		q = "SELECT num_timed, num_requested FROM pg_stat_checkpointer"
	}
	if err := db.conn.QueryRow(ctx, q).Scan(&timed, &requested); err != nil {
		return 0, 0, fmt.Errorf("read checkpoint statistics: %w", err)
	}
	return timed, requested, nil
}
