package stack

import (
	"context"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// A failing setup command fails the build of the template with its output's
// tail, and the command saw DATABASE_URL.
func TestFixtureSetupCommandFailureShowsItsOutput(t *testing.T) {
	fx := Fixture("blog", &plan.DatabaseFixture{Dir: t.TempDir(), Setup: `echo "migrating $DATABASE_URL"; echo "error: no such table" >&2; exit 3`, Hash: "h"}, t.TempDir())
	err := fx.Build(context.Background(), "postgres://x@127.0.0.1:1/tpl")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"database setup command", "exit status 3", "migrating postgres://x@127.0.0.1:1/tpl", "error: no such table"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}
