package pgfix_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// The embedded cluster preloads pg_stat_statements; a reset empties the
// counts and the statements run after it are counted, by total time.
func TestStatementsCountedAfterReset(t *testing.T) {
	ctx := context.Background()
	url := pgtest.FreshDB(t)
	db, conn := openDB(t, url), connect(t, url)
	if err := db.ResetStatements(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		if _, err := conn.Exec(ctx, "SELECT name FROM users WHERE id = $1", i+1); err != nil {
			t.Fatal(err)
		}
	}
	stmts, err := db.Statements(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range stmts {
		if strings.Contains(s.Query, "FROM users WHERE id = $1") {
			found = s.Calls == 7 && s.Rows == 7 && s.TotalMillis > 0
		}
		if strings.Contains(s.Query, "pg_stat_statements") {
			t.Errorf("the reset itself is listed: %+v", s)
		}
	}
	if !found {
		t.Errorf("statements %+v; want the users query called 7 times, 7 rows", stmts)
	}
	if err := db.ResetStatements(ctx); err != nil {
		t.Fatal(err)
	}
	if stmts, _ = db.Statements(ctx, 10); len(stmts) != 0 {
		t.Errorf("after a reset: %+v, want none", stmts)
	}
}
