package pgfix_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// TestTFBFixture seeds the tfb tables in both name forms and logs in as
// the role TFB entries use.
func TestTFBFixture(t *testing.T) {
	url := pgtest.FreshFixtureDB(t, pgfix.TFBFixture())
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	numbers := pgfix.TFBWorldNumbers()
	lo, hi := numbers[0], numbers[0]
	for _, n := range numbers {
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo < 1 || hi > pgfix.TFBWorldRows {
		t.Errorf("World numbers span %d…%d, want within 1…%d", lo, hi, pgfix.TFBWorldRows)
	}
	var quoted, folded int
	if err := conn.QueryRow(ctx, `SELECT "randomNumber" FROM "World" WHERE id = 4242`).Scan(&quoted); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT randomNumber FROM World WHERE id = 4242`).Scan(&folded); err != nil {
		t.Fatal(err)
	}
	if quoted != numbers[4241] || folded != numbers[4241] {
		t.Errorf("row 4242: World %d, world %d; want %d in both", quoted, folded, numbers[4241])
	}
	var msg string
	if err := conn.QueryRow(ctx, `SELECT message FROM "Fortune" WHERE id = 12`).Scan(&msg); err != nil {
		t.Fatal(err)
	}
	if msg != "フレームワークのベンチマーク" {
		t.Errorf("fortune 12 is %q", msg)
	}
	// The role TFB entries hard-code can read and update the tables.
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Password = pgfix.TFBUser, pgfix.TFBPassword
	user, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("log in as %s: %v", pgfix.TFBUser, err)
	}
	defer user.Close(ctx)
	if _, err := user.Exec(ctx, `UPDATE world SET randomnumber = 7 WHERE id = 1`); err != nil {
		t.Errorf("%s cannot update world: %v", pgfix.TFBUser, err)
	}
}
