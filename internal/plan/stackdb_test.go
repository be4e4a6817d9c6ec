package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStackDatabase(t *testing.T) {
	path := writeConfig(t, `workload:
  name: blog
  cases: [{name: add, method: POST, path: /a, inserts: true, database: true}]
stacks:
  - name: a
    dir: apps/a
    start: ./server
    env: {NODE_ENV: production}
    database: {schema: [apps/a/*.sql], seed: apps/a/seed.sql, reset: "TRUNCATE a; VACUUM a"}
  - name: b
    dir: apps/b
    start: ./server
    database: {migrate: npx knex migrate:latest, seed: npx knex seed:run}
  - name: c
    dir: apps/a
    start: ./server
    database: {migrate: npx knex migrate:latest, seed: npx knex seed:run}
`)
	dir := filepath.Dir(path)
	for _, f := range []string{"apps/a/1.sql", "apps/a/2.sql", "apps/a/seed.sql"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("SELECT 1;"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := f.Stacks[0].Database, f.Stacks[1].Database, f.Stacks[2].Database
	if a == nil || len(a.Schema) != 3 || !a.SeedFile || len(a.Reset) != 2 || a.Dir != filepath.Join(dir, "apps/a") {
		t.Fatalf("stack a's database %+v", a)
	}
	if b.Setup != "npx knex migrate:latest" || b.Seed != "npx knex seed:run" || b.SeedFile || b.Dir != filepath.Join(dir, "apps/b") {
		t.Errorf("stack b's database %+v", b)
	}
	if b.Hash == c.Hash {
		t.Error("the same commands in two dirs build one template; they must not")
	}
	if !f.Workload.NeedsDatabase {
		t.Error("stacks with databases of their own need a database")
	}
	if len(f.Warnings) != 2 || !strings.Contains(f.Warnings[0].Msg, `stack "b" brings its own database without reset:`) {
		t.Errorf("warnings %v, want one per stack without reset:", f.Warnings)
	}
	p1, _ := f.Resolve(Overrides{})
	f.Stacks[1].Database.Hash = "changed"
	p2, _ := f.Resolve(Overrides{})
	if p1.Fingerprint == p2.Fingerprint {
		t.Error("a change to a stack's database leaves the fingerprint alone")
	}
	if !OwnDatabases(f.Stacks) || OwnDatabases(f.Stacks[:0]) {
		t.Error("OwnDatabases")
	}
}

func TestStackDatabaseProblems(t *testing.T) {
	got := strings.Join(loadProblems(t, `workload: saas-slice
stacks:
  - name: a
    dir: apps/a
    start: ./server
    database: {schema: [nothing/*.sql], setup: x}
  - name: b
    dir: apps/b
    start: ./server
    database: {reset: "TRUNCATE x"}
`), "\n")
	for _, want := range []string{
		`6:41: unknown key "setup" in stack "a"'s database; write one of: schema, migrate, seed, reset`,
		`6:25: schema "nothing/*.sql" matches no file`,
		`10:15: stack "b"'s database has no schema, migrate or seed`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
