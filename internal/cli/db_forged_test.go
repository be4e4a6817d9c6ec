package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// A cluster directory is data: one forged from another cluster's
// cluster.json and a copy of its postmaster.pid leads to that other
// server, and db seed and db reset with --dir of it must change nothing
// there. They ask the server for its data directory first.
func TestDBSeedAndResetRefuseAForgedClusterDirectory(t *testing.T) {
	real := pgtest.Cluster(t)
	forged := t.TempDir()
	if err := os.MkdirAll(filepath.Join(forged, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cluster.json", "data/postmaster.pid"} {
		b, err := os.ReadFile(filepath.Join(real.Dir(), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(forged, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	execSQL(t, real.AdminURL(), "DROP DATABASE IF EXISTS forged_probe")
	execSQL(t, real.AdminURL(), "CREATE DATABASE forged_probe")
	t.Cleanup(func() { execSQL(t, real.AdminURL(), "DROP DATABASE IF EXISTS forged_probe WITH (FORCE)") })
	for _, verb := range []string{"seed", "reset"} {
		code, _, errOut := runMain(t, t.TempDir(), nil, "db", verb, "--dir", forged)
		if code == 0 || !strings.Contains(errOut, "serves the data directory "+filepath.Join(real.Dir(), "data")) || !strings.Contains(errOut, "nothing was changed") {
			t.Errorf("db %s --dir of a forged cluster directory: exit %d, stderr %q", verb, code, errOut)
		}
	}
	if n := queryInt(t, real.AdminURL(), "SELECT count(*) FROM pg_database WHERE datname = 'forged_probe'"); n != 1 {
		t.Errorf("the real cluster's databases changed: forged_probe count %d", n)
	}
}
