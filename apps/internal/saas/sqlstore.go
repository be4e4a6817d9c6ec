package saas

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SQLStore is the Store over database/sql: a pool of PoolSize open and idle
// connections and the three queries prepared once at start. database/sql
// prepares a statement on each pooled connection the first time it runs
// there and reuses it after, so every query is parsed once per connection,
// as pgx's statement cache does for PgxStore. The driver is whatever the
// main package registered (pgx's stdlib adapter as "pgx", lib/pq as
// "postgres"); lib/pq has no implicit statement cache, which is why the
// statements are prepared explicitly.
type SQLStore struct {
	db                            *sql.DB
	userByID, listUsers, newOrder *sql.Stmt
}

// OpenSQL opens a database/sql pool with the registered driver, checks that
// the database answers and prepares the store's statements.
func OpenSQL(ctx context.Context, driverName, databaseURL string) (*SQLStore, error) {
	db, err := sql.Open(driverName, databaseURL)
	if err != nil {
		return nil, fmt.Errorf("open database/sql driver %q: %w", driverName, err)
	}
	db.SetMaxOpenConns(PoolSize)
	db.SetMaxIdleConns(PoolSize)
	s := &SQLStore{db: db}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *SQLStore) prepare(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("connect to the database (is DATABASE_URL right and the server up?): %w", err)
	}
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&s.userByID, queryUserByID},
		{&s.listUsers, queryListUsers},
		{&s.newOrder, queryInsertOrder},
	} {
		stmt, err := s.db.PrepareContext(ctx, p.query)
		if err != nil {
			return fmt.Errorf("prepare %q (is the database seeded? stackbench db up makes one): %w", p.query, err)
		}
		*p.stmt = stmt
	}
	return nil
}

// Close closes the statements and the pool.
func (s *SQLStore) Close() error {
	for _, stmt := range []*sql.Stmt{s.userByID, s.listUsers, s.newOrder} {
		if stmt != nil {
			stmt.Close()
		}
	}
	return s.db.Close()
}

// scanUser reads a users row (id, name, email, age, created_at).
func scanUser(scan func(dest ...any) error) (User, error) {
	var u User
	var created time.Time
	if err := scan(&u.ID, &u.Name, &u.Email, &u.Age, &created); err != nil {
		return User{}, err
	}
	u.CreatedAt = FormatTime(created)
	return u, nil
}

// UserByID implements Store.
func (s *SQLStore) UserByID(ctx context.Context, id int32) (User, error) {
	u, err := scanUser(s.userByID.QueryRowContext(ctx, id).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("query user %d: %w", id, err)
	}
	return u, nil
}

// ListUsers implements Store.
func (s *SQLStore) ListUsers(ctx context.Context, offset int64, limit int32) ([]User, error) {
	rows, err := s.listUsers.QueryContext(ctx, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	users := make([]User, 0, limit)
	for rows.Next() {
		u, err := scanUser(rows.Scan)
		if err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}

// sqlStater is the error of both drivers' server errors (pgconn.PgError,
// pq.Error); the store needs only the SQLSTATE code.
type sqlStater interface{ SQLState() string }

// InsertOrder implements Store.
func (s *SQLStore) InsertOrder(ctx context.Context, o NewOrder) (Order, error) {
	out := Order{UserID: o.UserID, Amount: o.Amount, Currency: o.Currency}
	var created time.Time
	err := s.newOrder.QueryRowContext(ctx, o.UserID, o.Amount, o.Currency).Scan(&out.ID, &created)
	var stateErr sqlStater
	if errors.As(err, &stateErr) && stateErr.SQLState() == sqlStateForeignKeyViolation {
		return Order{}, ErrUnknownUser
	}
	if err != nil {
		return Order{}, fmt.Errorf("insert order: %w", err)
	}
	out.CreatedAt = FormatTime(created)
	return out, nil
}
