package pgfix

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The seed of the saas-slice workload (docs/database.md, saas-slice.md).
const (
	SeedUsers  = 50000  // users, ids 1…SeedUsers
	SeedOrders = 200000 // orders, ids 1…SeedOrders
	seedPRNG   = 20260905
	// CheckUserID and CheckUserCreatedAt are the contract's check value.
	CheckUserID        = 4242
	CheckUserCreatedAt = "2023-11-14T23:24:01.000Z"
)

var (
	usersEpoch  = time.UnixMilli(1_700_000_000_000).UTC()
	ordersEpoch = time.UnixMilli(1_710_000_000_000).UTC()
	currencies  = [3]string{"USD", "EUR", "GBP"}
)

// SeedReport describes a seeded database.
type SeedReport struct {
	Users, Orders int64
	// Duration is the time to create, load, index, vacuum and verify.
	Duration time.Duration
	// Reused is true when EnsureTemplate found a complete template and did
	// no work.
	Reused bool
}

// User is one seeded user row.
type User struct {
	ID        int
	Name      string
	Email     string
	Age       int
	CreatedAt time.Time
}

// Order is one seeded order row; Amount is in hundredths (1999 is "19.99").
type Order struct {
	ID               int
	UserID           int
	AmountHundredths int64
	Currency         string
	CreatedAt        time.Time
}

// seedGen produces the seed rows in the contract's draw order: all users,
// then all orders.
type seedGen struct{ rng mulberry32 }

func newSeedGen() *seedGen { return &seedGen{rng: mulberry32{state: seedPRNG}} }

func (g *seedGen) user(k int) User {
	return User{
		ID:        k,
		Name:      fmt.Sprintf("User %d", k),
		Email:     fmt.Sprintf("user%d@example.com", k),
		Age:       18 + int(g.rng.draw()*60),
		CreatedAt: usersEpoch.Add(time.Duration(k-1) * time.Second),
	}
}

func (g *seedGen) order(id int) Order {
	o := Order{ID: id}
	o.UserID = 1 + int(g.rng.draw()*SeedUsers)
	o.AmountHundredths = amountHundredths(g.rng.next())
	o.Currency = currencies[int(g.rng.draw()*3)]
	o.CreatedAt = ordersEpoch.Add(time.Duration(int64(g.rng.draw()*1e9)) * time.Millisecond)
	return o
}

// SeedUser returns the seeded user with the given id, as the database
// holds it after seeding; ok is false outside 1…SeedUsers.
func SeedUser(id int) (u User, ok bool) {
	if id < 1 || id > SeedUsers {
		return User{}, false
	}
	g := newSeedGen()
	for k := 1; k < id; k++ {
		g.rng.next()
	}
	return g.user(id), true
}

// seedSums are aggregates of the generated rows, compared with the
// database's after loading.
type seedSums struct {
	ageSum, userIDSum, amountHundredths int64
}

const schemaSQL = `
CREATE TABLE users (
  id serial,
  name text NOT NULL,
  email text NOT NULL,
  age int NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE orders (
  id serial,
  user_id int NOT NULL,
  amount numeric(12,2) NOT NULL,
  currency char(3) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`

// constraintsSQL gives the tables the spec's keys and index, under the
// names inline definitions would get; adding them after the COPY is
// faster than checking every row as it arrives.
const constraintsSQL = `
ALTER TABLE users ADD CONSTRAINT users_pkey PRIMARY KEY (id),
  ADD CONSTRAINT users_email_key UNIQUE (email);
ALTER TABLE orders ADD CONSTRAINT orders_pkey PRIMARY KEY (id),
  ADD CONSTRAINT orders_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id);
CREATE INDEX orders_user_id_idx ON orders (user_id);
SELECT setval('users_id_seq', 50000), setval('orders_id_seq', 200000)`

// Seed creates the schema in the empty database at url and loads the
// deterministic data with COPY, then vacuums, analyzes and verifies it,
// and marks the database as stackbench's own (its comment).
func Seed(ctx context.Context, url string) (SeedReport, error) {
	start := time.Now()
	conn, err := connect(ctx, url)
	if err != nil {
		return SeedReport{}, fmt.Errorf("seed: %w", err)
	}
	defer conn.Close(context.Background())
	var users, orders *string
	if err := conn.QueryRow(ctx, `SELECT to_regclass('users')::text, to_regclass('orders')::text`).Scan(&users, &orders); err != nil {
		return SeedReport{}, fmt.Errorf("seed: %w", err)
	}
	if users != nil || orders != nil {
		return SeedReport{}, fmt.Errorf("seed: the database already has a users or orders table; " +
			"seed an empty database (stackbench db seed replaces them)")
	}
	sums, err := load(ctx, conn)
	if err != nil {
		return SeedReport{}, fmt.Errorf("seed: %w", err)
	}
	if _, err := conn.Exec(ctx, "VACUUM (ANALYZE) users, orders"); err != nil {
		return SeedReport{}, fmt.Errorf("seed: vacuum: %w", err)
	}
	if err := verifySeed(ctx, conn, sums); err != nil {
		return SeedReport{}, err
	}
	var name string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
		return SeedReport{}, fmt.Errorf("seed: %w", err)
	}
	if err := markOwned(ctx, conn, name, seededMark); err != nil {
		return SeedReport{}, fmt.Errorf("seed: %w", err)
	}
	return SeedReport{Users: SeedUsers, Orders: SeedOrders, Duration: time.Since(start)}, nil
}

// Reseed drops the tables users and orders of the database at url, if
// they exist, and seeds it again. It works only on a database that
// carries stackbench's mark or has no tables at all, and returns a
// *NotOwnedError otherwise.
func Reseed(ctx context.Context, url string) (SeedReport, error) {
	conn, err := connect(ctx, url)
	if err != nil {
		return SeedReport{}, fmt.Errorf("reseed: %w", err)
	}
	o, err := inspect(ctx, conn)
	if err == nil && !o.Owned && o.Tables > 0 {
		err = &NotOwnedError{Database: o.Database, Comment: o.Comment, Tables: o.Tables, Verb: "re-seed"}
	}
	if err != nil {
		conn.Close(context.Background())
		return SeedReport{}, err
	}
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS orders, users")
	conn.Close(context.Background())
	if err != nil {
		return SeedReport{}, fmt.Errorf("reseed: drop tables: %w", err)
	}
	return Seed(ctx, url)
}

// load creates the tables and copies the rows in, in one transaction.
func load(ctx context.Context, conn *pgx.Conn) (seedSums, error) {
	var sums seedSums
	tx, err := conn.Begin(ctx)
	if err != nil {
		return sums, err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, schemaSQL); err != nil {
		return sums, fmt.Errorf("create tables: %w", err)
	}
	g := newSeedGen()
	k := 0
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"users"}, []string{"id", "name", "email", "age", "created_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if k == SeedUsers {
				return nil, nil
			}
			k++
			u := g.user(k)
			sums.ageSum += int64(u.Age)
			return []any{int32(u.ID), u.Name, u.Email, int32(u.Age), u.CreatedAt}, nil
		}))
	if err != nil || n != SeedUsers {
		return sums, fmt.Errorf("copy users (%d rows): %v", n, err)
	}
	id := 0
	n, err = tx.CopyFrom(ctx, pgx.Identifier{"orders"}, []string{"id", "user_id", "amount", "currency", "created_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if id == SeedOrders {
				return nil, nil
			}
			id++
			o := g.order(id)
			sums.userIDSum += int64(o.UserID)
			sums.amountHundredths += o.AmountHundredths
			amount := pgtype.Numeric{Int: big.NewInt(o.AmountHundredths), Exp: -2, Valid: true}
			return []any{int32(o.ID), int32(o.UserID), amount, o.Currency, o.CreatedAt}, nil
		}))
	if err != nil || n != SeedOrders {
		return sums, fmt.Errorf("copy orders (%d rows): %v", n, err)
	}
	if _, err := tx.Exec(ctx, constraintsSQL); err != nil {
		return sums, fmt.Errorf("add keys and index: %w", err)
	}
	return sums, tx.Commit(ctx)
}

// verifySeed compares the database with the generated rows: counts, sums
// and the contract's check user.
func verifySeed(ctx context.Context, conn *pgx.Conn, want seedSums) error {
	var users, orders, ageSum, userIDSum int64
	var amountSum, checkCreatedAt string
	err := conn.QueryRow(ctx, `SELECT
  (SELECT count(*) FROM users), (SELECT count(*) FROM orders),
  (SELECT sum(age) FROM users), (SELECT sum(user_id) FROM orders),
  (SELECT sum(amount)::text FROM orders),
  (SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM users WHERE id = $1)`,
		CheckUserID).Scan(&users, &orders, &ageSum, &userIDSum, &amountSum, &checkCreatedAt)
	if err != nil {
		return fmt.Errorf("verify seed: %w", err)
	}
	wantAmount := formatHundredths(want.amountHundredths)
	switch {
	case users != SeedUsers || orders != SeedOrders:
		return fmt.Errorf("verify seed: %d users and %d orders, want %d and %d", users, orders, SeedUsers, SeedOrders)
	case checkCreatedAt != CheckUserCreatedAt:
		return fmt.Errorf("verify seed: user %d createdAt %s, want %s", CheckUserID, checkCreatedAt, CheckUserCreatedAt)
	case ageSum != want.ageSum || userIDSum != want.userIDSum || amountSum != wantAmount:
		return fmt.Errorf("verify seed: sums (age %d, user_id %d, amount %s) differ from the generated rows' (%d, %d, %s)",
			ageSum, userIDSum, amountSum, want.ageSum, want.userIDSum, wantAmount)
	}
	return nil
}
