package pgfix

import (
	"context"
	"fmt"
)

// Stats is a snapshot of the database state that can bias a window.
type Stats struct {
	ServerVersion    string // server_version, e.g. "15.18 (Debian 15.18-0+deb12u1)"
	ServerVersionNum int    // server_version_num, e.g. 150018
	// Checkpoints is timed plus requested checkpoints since the statistics
	// were reset; the difference across a window is the checkpoints in it.
	// The server counts a timed checkpoint it skips (nothing written) too.
	Checkpoints          int64
	CheckpointsTimed     int64
	CheckpointsRequested int64
	UsersRows            int64 // count(*) of users
	// OrdersRows is count(*) of orders: exact, where the tuple statistics
	// below can lag by a second or more.
	OrdersRows int64
	// OrdersLiveTuples and OrdersDeadTuples are n_live_tup and n_dead_tup,
	// the statistics' counts: they lag like the rest of the view (right after
	// ResetOrders, the DELETE's counts can land after VACUUM's and show
	// deleted rows as dead).
	OrdersLiveTuples int64
	OrdersDeadTuples int64
	// OrdersSizeBytes is pg_total_relation_size: table, indexes and TOAST.
	OrdersSizeBytes        int64
	OrdersAutovacuumCount  int64
	OrdersAutoanalyzeCount int64
	// Settings are the server's values of keySettings.
	Settings map[string]string
}

// keySettings are the server settings recorded with every stats snapshot.
var keySettings = []string{
	"server_version", "max_connections", "shared_buffers", "effective_cache_size", "work_mem",
	"fsync", "synchronous_commit", "full_page_writes", "wal_level", "max_wal_size",
	"checkpoint_timeout", "autovacuum", "jit", "huge_pages", "listen_addresses", "TimeZone",
}

// Stats reads a snapshot of checkpoint counters, the orders table and
// key settings.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	s := Stats{ServerVersionNum: db.versionNum, Settings: map[string]string{}}
	var err error
	if s.CheckpointsTimed, s.CheckpointsRequested, err = db.checkpointCounts(ctx); err != nil {
		return s, err
	}
	s.Checkpoints = s.CheckpointsTimed + s.CheckpointsRequested
	// A statistics snapshot taken earlier in this session would be reused.
	if _, err := db.conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return s, fmt.Errorf("stats: %w", err)
	}
	if db.seeded {
		if err := db.ordersStats(ctx, &s); err != nil {
			return s, err
		}
	}
	return db.settings(ctx, s)
}

// ordersStats reads the saas-slice tables' figures.
func (db *DB) ordersStats(ctx context.Context, s *Stats) error {
	err := db.conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM orders),
  n_live_tup, n_dead_tup, pg_total_relation_size(relid), autovacuum_count, autoanalyze_count
  FROM pg_stat_user_tables WHERE relname = 'orders' AND schemaname = current_schema()`).Scan(
		&s.UsersRows, &s.OrdersRows, &s.OrdersLiveTuples, &s.OrdersDeadTuples, &s.OrdersSizeBytes,
		&s.OrdersAutovacuumCount, &s.OrdersAutoanalyzeCount)
	if err != nil {
		return fmt.Errorf("stats of orders (is this a seeded database?): %w", err)
	}
	return nil
}

// settings reads the key settings into s.
func (db *DB) settings(ctx context.Context, s Stats) (Stats, error) {
	rows, err := db.conn.Query(ctx, "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1)", keySettings)
	if err != nil {
		return s, fmt.Errorf("stats: settings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return s, fmt.Errorf("stats: settings: %w", err)
		}
		s.Settings[name] = value
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("stats: settings: %w", err)
	}
	s.ServerVersion = s.Settings["server_version"]
	return s, nil
}
