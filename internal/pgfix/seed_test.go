package pgfix_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestSeededDatabase checks a fresh copy of the template against the
// contract's check values and rows computed by a JavaScript run of the
// published generator (node, mulberry32, toFixed).
func TestSeededDatabase(t *testing.T) {
	url := pgtest.FreshDB(t)
	conn := connect(t, url)
	ctx := context.Background()
	var users, orders int64
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM orders)").Scan(&users, &orders); err != nil {
		t.Fatal(err)
	}
	if users != 50000 || orders != 200000 {
		t.Errorf("counts = %d users, %d orders; want 50000, 200000", users, orders)
	}
	const userRow = `SELECT name, email, age, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM users WHERE id = $1`
	for _, want := range []struct {
		id                     int
		name, email, createdAt string
		age                    int
	}{
		{1, "User 1", "user1@example.com", "2023-11-14T22:13:20.000Z", 68},
		{4242, "User 4242", "user4242@example.com", "2023-11-14T23:24:01.000Z", 35},
		{50000, "User 50000", "user50000@example.com", "2023-11-15T12:06:39.000Z", 33},
	} {
		var name, email, createdAt string
		var age int
		if err := conn.QueryRow(ctx, userRow, want.id).Scan(&name, &email, &age, &createdAt); err != nil {
			t.Fatalf("user %d: %v", want.id, err)
		}
		if name != want.name || email != want.email || age != want.age || createdAt != want.createdAt {
			t.Errorf("user %d = %q %q %d %s; want %q %q %d %s", want.id, name, email, age, createdAt,
				want.name, want.email, want.age, want.createdAt)
		}
	}
	const orderRow = `SELECT user_id, amount::text, currency, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM orders WHERE id = $1`
	for _, want := range []struct {
		id                          int
		userID                      int
		amount, currency, createdAt string
	}{
		{1, 9703, "111.11", "GBP", "2024-03-17T00:42:58.869Z"},
		{2, 193, "425.22", "EUR", "2024-03-12T22:25:49.829Z"},
		{3, 3510, "310.21", "GBP", "2024-03-15T19:33:19.944Z"},
		{200000, 23414, "55.26", "GBP", "2024-03-14T20:33:10.672Z"},
	} {
		var userID int
		var amount, currency, createdAt string
		if err := conn.QueryRow(ctx, orderRow, want.id).Scan(&userID, &amount, &currency, &createdAt); err != nil {
			t.Fatalf("order %d: %v", want.id, err)
		}
		if userID != want.userID || amount != want.amount || currency != want.currency || createdAt != want.createdAt {
			t.Errorf("order %d = %d %s %s %s; want %d %s %s %s", want.id, userID, amount, currency, createdAt,
				want.userID, want.amount, want.currency, want.createdAt)
		}
	}
	var ageSum, userIDSum int64
	var amountSum string
	if err := conn.QueryRow(ctx, "SELECT (SELECT sum(age) FROM users), (SELECT sum(user_id) FROM orders), (SELECT sum(amount)::text FROM orders)").
		Scan(&ageSum, &userIDSum, &amountSum); err != nil {
		t.Fatal(err)
	}
	if ageSum != 2373048 || userIDSum != 5000494022 || amountSum != "50096439.24" {
		t.Errorf("sums = age %d, user_id %d, amount %s; want 2373048, 5000494022, 50096439.24", ageSum, userIDSum, amountSum)
	}
	var nextUser, nextOrder int64
	if err := conn.QueryRow(ctx, "SELECT nextval('users_id_seq'), nextval('orders_id_seq')").Scan(&nextUser, &nextOrder); err != nil {
		t.Fatal(err)
	}
	if nextUser != 50001 || nextOrder != 200001 {
		t.Errorf("next ids = %d, %d; want 50001, 200001", nextUser, nextOrder)
	}
	if _, err := pgfix.Seed(ctx, url); err == nil || !strings.Contains(err.Error(), "already has") {
		t.Errorf("Seed into a seeded database: err = %v, want a refusal", err)
	}
}
