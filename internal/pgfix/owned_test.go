package pgfix_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// A database stackbench did not make is never dropped, not even one whose
// name a run would use: FreshDatabase and DropDatabase refuse it and say
// why. Copies carry the mark and are replaced as before.
func TestOnlyMarkedDatabasesAreDropped(t *testing.T) {
	ctx := context.Background()
	admin := pgtest.Cluster(t).AdminURL()
	exec1(t, admin, "DROP DATABASE IF EXISTS stackbench_run_owned_test")
	exec1(t, admin, "CREATE DATABASE stackbench_run_owned_test")
	t.Cleanup(func() { exec1(t, admin, "DROP DATABASE IF EXISTS stackbench_run_owned_test WITH (FORCE)") })
	_, err := pgfix.FreshDatabase(ctx, admin, "stackbench_run_owned_test")
	var notOwned *pgfix.NotOwnedError
	if !errors.As(err, &notOwned) || !strings.Contains(err.Error(), `refusing to drop database "stackbench_run_owned_test": stackbench did not make it`) {
		t.Fatalf("FreshDatabase over a database stackbench did not make: %v", err)
	}
	if err := pgfix.DropDatabase(ctx, admin, "stackbench_run_owned_test"); !errors.As(err, &notOwned) {
		t.Fatalf("DropDatabase of a database stackbench did not make: %v", err)
	}
	if ok, err := pgfix.DatabaseExists(ctx, admin, "stackbench_run_owned_test"); err != nil || !ok {
		t.Fatalf("the database is gone: %v, %v", ok, err)
	}

	url := pgtest.FreshDB(t)
	if err := pgfix.CheckOwned(ctx, url, "reset"); err != nil {
		t.Errorf("a fresh copy is not marked: %v", err)
	}
	if _, err := pgfix.Reseed(ctx, url); err != nil {
		t.Errorf("reseed of a marked copy: %v", err)
	}
}

func TestRedactHidesEveryPassword(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@127.0.0.1:5432/db":          "postgres://u:xxxxx@127.0.0.1:5432/db",
		"host=127.0.0.1 user=u password=secret dbname=d": "host=127.0.0.1 user=u password=xxxxx dbname=d",
		"host=h password = 'se cret\\'x' dbname=d":       "host=h password = xxxxx dbname=d",
		"postgres://127.0.0.1/db":                        "postgres://127.0.0.1/db",
	} {
		if got := pgfix.Redact(in); got != want || strings.Contains(got, "secret") {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
