package cli

import (
	"strings"
	"testing"
)

// plan shows the database URL with a password in its query hidden, as
// one in its user info is.
func TestPlanHidesAQueryPassword(t *testing.T) {
	dir := writeComparison(t, twoStacks)
	getenv := func(k string) string {
		if k == "BENCH_DB" {
			return "postgres://bench@127.0.0.1:5432/bench?password=hunter2&sslmode=disable"
		}
		return ""
	}
	code, out, errOut := runMain(t, dir, getenv, "plan")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, "hunter2") || !strings.Contains(out, "password=xxxxx") {
		t.Errorf("plan shows the query's password:\n%s", out)
	}
}
