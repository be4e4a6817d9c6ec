package saas

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PgxStore is the Store over a pgx v5 native pool of PoolSize connections,
// with pgx's default statement cache (each query is prepared once per
// connection).
type PgxStore struct {
	pool *pgxpool.Pool
}

// OpenPgx connects a pool to databaseURL and checks that the database
// answers.
func OpenPgx(ctx context.Context, databaseURL string) (*PgxStore, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	cfg.MaxConns = PoolSize
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to the database (is DATABASE_URL right and the server up?): %w", err)
	}
	return &PgxStore{pool: pool}, nil
}

// Close closes the pool.
func (s *PgxStore) Close() { s.pool.Close() }

// UserByID implements Store.
func (s *PgxStore) UserByID(ctx context.Context, id int32) (User, error) {
	var u User
	var created time.Time
	err := s.pool.QueryRow(ctx, queryUserByID, id).Scan(&u.ID, &u.Name, &u.Email, &u.Age, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("query user %d: %w", id, err)
	}
	u.CreatedAt = FormatTime(created)
	return u, nil
}

// ListUsers implements Store.
func (s *PgxStore) ListUsers(ctx context.Context, offset int64, limit int32) ([]User, error) {
	rows, err := s.pool.Query(ctx, queryListUsers, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	users := make([]User, 0, limit)
	for rows.Next() {
		var u User
		var created time.Time
		if err := rows.Scan(&u.ID, &u.Name, &u.Email, &u.Age, &created); err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		u.CreatedAt = FormatTime(created)
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}

// InsertOrder implements Store.
func (s *PgxStore) InsertOrder(ctx context.Context, o NewOrder) (Order, error) {
	out := Order{UserID: o.UserID, Amount: o.Amount, Currency: o.Currency}
	var created time.Time
	err := s.pool.QueryRow(ctx, queryInsertOrder, o.UserID, o.Amount, o.Currency).Scan(&out.ID, &created)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == sqlStateForeignKeyViolation {
		return Order{}, ErrUnknownUser
	}
	if err != nil {
		return Order{}, fmt.Errorf("insert order: %w", err)
	}
	out.CreatedAt = FormatTime(created)
	return out, nil
}
