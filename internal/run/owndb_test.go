package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// ownDatabasesFile is a workload of two stacks whose schemas differ (a
// table and a column of each one's own): stack a's database is built
// from SQL files, stack b's by its own migrate and seed commands (run in
// its dir with its env:), each before any process of it starts and after
// its build (b's migrate needs the file its build makes, as npx knex
// needs the node_modules npm ci installs).
func ownDatabasesFile(admin, protocol string) string {
	return `
database: ` + admin + `
workload:
  name: items
  cases:
    - {name: item, path: /items/alpha, database: true}
    - name: add
      method: POST
      path: /items
      headers: {Content-Type: application/json}
      body: '{"name":"gamma"}'
      expect: [201]
      inserts: true
      database: true
protocol:
` + protocol + `
stacks:
  - name: a
    dir: .
    env: {TABLE: a_items}
    start: ` + ownAppBin + `
    database:
      schema: [a.sql]
      seed: a_seed.sql
      reset: "DELETE FROM a_items WHERE id > 2"
  - name: b
    dir: .
    base: /api
    env: {TABLE: b_things, COL: title}
    build: touch built.marker
    start: env BASE=/api ` + ownAppBin + `
    database:
      migrate: test -f built.marker && ` + ownAppBin + ` migrate
      seed: ` + ownAppBin + ` seed
      reset: "DELETE FROM b_things WHERE id > 2; VACUUM ANALYZE b_things"
`
}

// writeOwnSchema writes stack a's schema and seed beside path.
func writeOwnSchema(t *testing.T, path string) {
	t.Helper()
	dir := filepath.Dir(path)
	for name, sql := range map[string]string{
		"a.sql":      "CREATE TABLE a_items (id serial PRIMARY KEY, name text NOT NULL);",
		"a_seed.sql": "INSERT INTO a_items (name) VALUES ('alpha'), ('beta');",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStacksWithDatabasesOfTheirOwn: each stack's copies come from its
// own template (a shared one would lack the other's table: its reads
// would answer 500), parity passes, and every inserting window is
// preceded by the stack's own reset.
func TestStacksWithDatabasesOfTheirOwn(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	admin := pgtest.Cluster(t).AdminURL()
	path := writeFile(t, ownDatabasesFile(admin, `  concurrency: [2]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  boot_starts: 0
  gate: off`))
	writeOwnSchema(t, path)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.Parity) != 1 || !res.Parity[0].Passed {
		t.Fatalf("parity %+v", res.Parity)
	}
	if len(byKey) != 4 {
		t.Fatalf("%d windows, want 4", len(byKey))
	}
	for k, w := range byKey {
		if !w.Valid() || w.Load.Successes == 0 || w.Load.Failures() != 0 {
			t.Errorf("%s: valid %v reasons %v, %d successes, %d failures", k, w.Valid(), w.Reasons, w.Load.Successes, w.Load.Failures())
		}
		if strings.Contains(k, "/add/") && w.Timings.ResetSeconds == 0 {
			t.Errorf("%s: an inserting window with no reset before it", k)
		}
	}
}

// TestColdStartsRunTheSetupSteps: the boot suite's first request reads a
// row that a setup step creates (item delta); it succeeds in every cold
// start of both stacks, because the steps run on each stack's unmeasured
// start, on the copy its windows then use. Without them every first
// request answered 404.
func TestColdStartsRunTheSetupSteps(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	admin := pgtest.Cluster(t).AdminURL()
	src := ownDatabasesFile(admin, `  concurrency: [2]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 1
  boot_starts: 2
  cases: [item]
  gate: off`)
	src = strings.Replace(src, "  cases:\n", `  setup:
    - name: make
      method: POST
      path: /items
      headers: {Content-Type: application/json}
      body: '{"name":"delta"}'
      expect: [201]
  cases:
`, 1)
	src = strings.Replace(src, "/items/alpha", "/items/delta", 1)
	path := writeFile(t, src)
	writeOwnSchema(t, path)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	byKey, res := runtest.Finals(t, dir)
	if len(res.Boot) != 2 {
		t.Fatalf("%d boot records, want one per stack", len(res.Boot))
	}
	for _, b := range res.Boot {
		if len(b.Starts) != 2 || b.Error != "" {
			t.Errorf("stack %s: %d starts, error %q", b.Stack, len(b.Starts), b.Error)
		}
		for _, st := range b.Starts {
			if !st.FirstOK {
				t.Errorf("stack %s: a cold start's first request failed: %s", b.Stack, st.FirstError)
			}
		}
	}
	for k, w := range byKey {
		if !w.Valid() || w.Load.Failures() != 0 {
			t.Errorf("%s: valid %v reasons %v, %d failures", k, w.Valid(), w.Reasons, w.Load.Failures())
		}
	}
}
