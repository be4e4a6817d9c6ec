package pgfix_test

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// pgx reads a password from the URL's query too (password, sslpassword):
// Redact hides it there, with or without user info.
func TestRedactHidesQueryPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://127.0.0.1:5432/db?password=hunter2":                     "postgres://127.0.0.1:5432/db?password=xxxxx",
		"postgres://u@127.0.0.1/db?sslmode=require&PASSWORD=hunter2":        "postgres://u@127.0.0.1/db?PASSWORD=xxxxx&sslmode=require",
		"postgres://u:hunter2@127.0.0.1/db?sslpassword=hunter2&sslmode=off": "postgres://u:xxxxx@127.0.0.1/db?sslmode=off&sslpassword=xxxxx",
		"postgres://127.0.0.1/db?sslmode=disable":                           "postgres://127.0.0.1/db?sslmode=disable",
	} {
		if got := pgfix.Redact(in); got != want || strings.Contains(got, "hunter2") {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
