package saas

import "context"

// Store is the database layer. Implementations must be safe for concurrent
// use; each method is one query on a pooled connection.
type Store interface {
	// UserByID returns the user with the id, or ErrNotFound.
	UserByID(ctx context.Context, id int32) (User, error)
	// ListUsers returns at most limit users ordered by id, skipping offset.
	// Past the end it returns an empty (non-nil) slice.
	ListUsers(ctx context.Context, offset int64, limit int32) ([]User, error)
	// InsertOrder inserts the order and returns it with its id and creation
	// time, or ErrUnknownUser when no user has o.UserID.
	InsertOrder(ctx context.Context, o NewOrder) (Order, error)
}

// PoolSize is the number of database connections a reference server keeps,
// as the contract prescribes.
const PoolSize = 10

// The queries every Store runs; drivers differ in how they send them, not in
// what they send.
const (
	queryUserByID    = `SELECT id, name, email, age, created_at FROM users WHERE id = $1`
	queryListUsers   = `SELECT id, name, email, age, created_at FROM users ORDER BY id LIMIT $1 OFFSET $2`
	queryInsertOrder = `INSERT INTO orders (user_id, amount, currency) VALUES ($1, $2::numeric, $3) RETURNING id, created_at`
)

// sqlStateForeignKeyViolation is PostgreSQL's error code for an insert whose
// foreign key has no matching row.
const sqlStateForeignKeyViolation = "23503"
