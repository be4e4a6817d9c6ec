package saas

import (
	"context"
	"errors"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/lib/pq"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// TestSQLStore runs the Store contract on database/sql with both drivers the
// reference servers use.
func TestSQLStore(t *testing.T) {
	for _, driver := range []string{"pgx", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			store, err := OpenSQL(ctx, driver, pgtest.FreshDB(t))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			if got := store.db.Stats().MaxOpenConnections; got != PoolSize {
				t.Errorf("MaxOpenConnections = %d, want %d", got, PoolSize)
			}
			checkSQLStore(ctx, t, store)
		})
	}
}

func checkSQLStore(ctx context.Context, t *testing.T, store *SQLStore) {
	t.Helper()
	seeded, _ := pgfix.SeedUser(7)
	want := User{ID: 7, Name: seeded.Name, Email: seeded.Email, Age: int32(seeded.Age), CreatedAt: "2023-11-14T22:13:26.000Z"}
	if u, err := store.UserByID(ctx, 7); err != nil || u != want {
		t.Errorf("UserByID(7) = %+v, %v; want %+v", u, err, want)
	}
	if _, err := store.UserByID(ctx, 50001); !errors.Is(err, ErrNotFound) {
		t.Errorf("UserByID(50001) error = %v, want ErrNotFound", err)
	}
	page, err := store.ListUsers(ctx, 0, 3)
	if err != nil || len(page) != 3 || page[0].ID != 1 || page[2].ID != 3 || page[2].CreatedAt != "2023-11-14T22:13:22.000Z" {
		t.Errorf("ListUsers(0, 3) = %+v, %v; want users 1…3", page, err)
	}
	if end, err := store.ListUsers(ctx, 1<<62, 100); err != nil || end == nil || len(end) != 0 {
		t.Errorf("ListUsers past the end = %#v, %v; want an empty slice", end, err)
	}
	o, err := store.InsertOrder(ctx, NewOrder{UserID: 7, Amount: "0.50", Currency: "GBP"})
	if err != nil || o.ID <= pgfix.SeedOrders || o.UserID != 7 || o.Amount != "0.50" || o.Currency != "GBP" {
		t.Errorf("InsertOrder = %+v, %v", o, err)
	}
	if at, err := time.Parse(timeLayout, o.CreatedAt); err != nil || time.Since(at).Abs() > time.Minute {
		t.Errorf("InsertOrder createdAt = %q, want about now", o.CreatedAt)
	}
	if _, err := store.InsertOrder(ctx, NewOrder{UserID: 50001, Amount: "1.00", Currency: "USD"}); !errors.Is(err, ErrUnknownUser) {
		t.Errorf("InsertOrder for user 50001: error %v, want ErrUnknownUser", err)
	}
}
