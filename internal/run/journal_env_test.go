package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// A stack's secret env: values reach the journal (and results.json, made
// from it) as [redacted], their names kept — by name, by a password in a
// URL, by a token's look — and its other values as they are (they tell a
// changed stack across runs); the plan the run starts its stacks with
// keeps them all.
func TestStackEnvIsRedactedInTheJournal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	st := plan.Stack{Name: "a", Env: map[string]string{"API_KEY": "sk-live-SECRET", "DATABASE_PASSWORD": "hunter2", "GOMAXPROCS": "2",
		"CACHE_URL": "redis://app:hunter3@127.0.0.1:6379/0", "STRIPE": "rk0live0x9VfQ2mZr8TqW4nLp", "DB_POOL": "16", "NODE_OPTIONS": "--max-old-space-size=4096"}}
	r := &runner{opt: Options{Dir: dir, Plan: &plan.Plan{Stacks: []plan.Stack{st}}, File: &plan.File{}}}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := r.openJournal(); err != nil {
		t.Fatal(err)
	}
	r.jw.Close()
	b, err := os.ReadFile(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sk-live-SECRET", "hunter2", "hunter3", "rk0live0x9VfQ2mZr8TqW4nLp"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the journal holds %q", secret)
		}
	}
	res, err := journal.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := res.Plan.Plan.Stacks[0].Env
	for k, want := range map[string]string{"API_KEY": "[redacted]", "DATABASE_PASSWORD": "[redacted]", "CACHE_URL": "[redacted]", "STRIPE": "[redacted]",
		"GOMAXPROCS": "2", "DB_POOL": "16", "NODE_OPTIONS": "--max-old-space-size=4096"} {
		if env[k] != want {
			t.Errorf("journaled %s=%q, want %q", k, env[k], want)
		}
	}
	if st.Env["API_KEY"] != "sk-live-SECRET" {
		t.Errorf("the run's own plan lost its value: %v", st.Env)
	}
}
