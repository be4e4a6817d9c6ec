package pgfix_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// TestFixtureTemplateBuiltOncePerHash: a workload's own database is built
// once into its template, reused while the hash is the same, rebuilt when
// it changes; fresh copies hold what the build made, Stats works without
// the saas-slice tables, and Reset runs statements one by one (VACUUM too).
func TestFixtureTemplateBuiltOncePerHash(t *testing.T) {
	ctx := context.Background()
	admin := pgtest.Cluster(t).AdminURL()
	builds := 0
	fx := pgfix.Fixture{Name: "blog", Hash: "0123456789abcdef0123", Reset: []string{"TRUNCATE notes", "VACUUM ANALYZE notes"},
		Build: func(ctx context.Context, url string) error {
			builds++
			return pgfix.ExecSQL(ctx, url, "CREATE TABLE notes (id serial PRIMARY KEY, body text); INSERT INTO notes (body) SELECT 'n' FROM generate_series(1, 5)")
		}}
	for i := range 2 {
		reused, err := pgfix.EnsureFixture(ctx, admin, fx)
		if err != nil || reused != (i == 1) {
			t.Fatalf("ensure #%d: reused %v, %v", i+1, reused, err)
		}
	}
	if builds != 1 {
		t.Fatalf("built %d times, want once", builds)
	}
	url, err := pgfix.FreshDatabaseFrom(ctx, admin, fx.TemplateName(), "stackbench_fixture_test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgfix.DropDatabase(context.Background(), admin, "stackbench_fixture_test") })
	db, err := pgfix.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Stats(ctx); err != nil {
		t.Errorf("stats of a database without orders: %v", err)
	}
	if err := db.Reset(ctx, fx.Reset); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if err := db.Reset(ctx, []string{"DELETE FROM nope"}); err == nil || !strings.Contains(err.Error(), "DELETE FROM nope") {
		t.Errorf("a failing reset statement: %v", err)
	}
	fx.Hash = "fedcba9876543210fedc"
	if reused, err := pgfix.EnsureFixture(ctx, admin, fx); err != nil || reused || builds != 2 {
		t.Errorf("a new hash: reused %v, builds %d, %v", reused, builds, err)
	}
	bad := fx
	bad.Hash, bad.Build = "badbadbadbadbadbad", func(ctx context.Context, url string) error {
		return pgfix.ExecSQL(ctx, url, "CREATE TABLE x (id int); SELEC 1")
	}
	if _, err := pgfix.EnsureFixture(ctx, admin, bad); err == nil || !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("a failing build: %v", err)
	}
}
