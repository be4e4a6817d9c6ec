package saas

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestPgxStore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store, err := OpenPgx(ctx, pgtest.FreshDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if got := store.pool.Config().MaxConns; got != PoolSize {
		t.Errorf("pool MaxConns = %d, want %d", got, PoolSize)
	}

	seeded, _ := pgfix.SeedUser(4242)
	want := User{ID: 4242, Name: seeded.Name, Email: seeded.Email, Age: int32(seeded.Age), CreatedAt: "2023-11-14T23:24:01.000Z"}
	if u, err := store.UserByID(ctx, 4242); err != nil || u != want {
		t.Errorf("UserByID(4242) = %+v, %v; want %+v", u, err, want)
	}
	if _, err := store.UserByID(ctx, 50001); !errors.Is(err, ErrNotFound) {
		t.Errorf("UserByID(50001) error = %v, want ErrNotFound", err)
	}

	page, err := store.ListUsers(ctx, 120, 20)
	if err != nil || len(page) != 20 || page[0].ID != 121 || page[19].ID != 140 {
		t.Errorf("ListUsers(120, 20) = %d users from %v, %v; want 121…140", len(page), page, err)
	}
	if end, err := store.ListUsers(ctx, 1<<62, 100); err != nil || end == nil || len(end) != 0 {
		t.Errorf("ListUsers past the end = %#v, %v; want an empty slice", end, err)
	}

	o, err := store.InsertOrder(ctx, NewOrder{UserID: 4242, Amount: "19.99", Currency: "USD"})
	if err != nil || o.ID <= pgfix.SeedOrders || o.UserID != 4242 || o.Amount != "19.99" || o.Currency != "USD" {
		t.Errorf("InsertOrder = %+v, %v", o, err)
	}
	if at, err := time.Parse(timeLayout, o.CreatedAt); err != nil || time.Since(at) > time.Minute || time.Since(at) < -time.Minute {
		t.Errorf("InsertOrder createdAt = %q, want about now", o.CreatedAt)
	}
	if _, err := store.InsertOrder(ctx, NewOrder{UserID: 50001, Amount: "1.00", Currency: "USD"}); !errors.Is(err, ErrUnknownUser) {
		t.Errorf("InsertOrder for user 50001: error %v, want ErrUnknownUser", err)
	}
}
