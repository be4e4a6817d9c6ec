package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// init in a directory whose name holds '#' and ': ', on an OpenAPI
// document with a colon in its base path and its operations' paths, a
// query with '#'-like text and a quoted example: plan reads back each
// value as init meant it (the name made a legal one, the rest as found).
func TestInitStarterReadsBackAwkwardValues(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop #1: api")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `openapi: 3.0.3
info: {title: shop, version: "1"}
servers: [{url: "http://localhost/api:v2"}]
paths:
  /items:search:
    get:
      operationId: "items: search"
      parameters:
        - {name: q, in: query, required: true, schema: {type: string, example: "a: b #c 'd' \"e\""}}
      responses: {"200": {description: ok}}
  /health:
    get: {responses: {"200": {description: ok}}}
`
	if err := os.WriteFile(filepath.Join(dir, "openapi.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runMain(t, dir, nil, "init", "--openapi", "openapi.yaml"); code != ExitOK {
		t.Fatalf("init: exit %d\n%s", code, errOut)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatalf("plan refuses the starter: %v\n%s", err, text)
	}
	s := f.Stacks[0]
	if f.Workload.Name != "shop-1-api" || s.Base != "/api:v2" || s.Health != "/api:v2/health" {
		t.Errorf("workload %q, base %q, health %q\n%s", f.Workload.Name, s.Base, s.Health, text)
	}
	var found bool
	for _, c := range f.Workload.Cases {
		if c.Path == "/items:search?q=a%3A+b+%23c+%27d%27+%22e%22" {
			found = true
		}
	}
	if !found {
		t.Errorf("no case reads back the search path with its example query:\n%s", text)
	}
}

// init --compare on a Node.js app with knex migrations and an OpenAPI
// document with a base path: both revisions' stacks carry the base:, the
// runtime and the database: migrate command the one-stack starter has,
// not only build and start.
func TestInitCompareCarriesBaseRuntimeAndDatabase(t *testing.T) {
	dir, git := gitRepo(t)
	src := copyFixture(t, "node-knex")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	doc := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\nservers: [{url: /api}]\npaths:\n  /tags:\n    get: {responses: {\"200\": {description: ok}}}\n"
	if err := os.WriteFile(filepath.Join(dir, "openapi.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "app")
	if code, _, errOut := runMain(t, dir, nil, "init", "--compare", "main", "HEAD", "--openapi", "openapi.yaml"); code != ExitOK {
		t.Fatalf("init --compare: exit %d\n%s", code, errOut)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatalf("plan refuses the starter: %v\n%s", err, text)
	}
	if len(f.Stacks) != 2 {
		t.Fatalf("%d stacks, want 2\n%s", len(f.Stacks), text)
	}
	for _, s := range f.Stacks {
		if s.Git == nil || s.Base != "/api" || s.Runtime != "node" || s.Database == nil ||
			s.Database.Setup != "DB_CONNECTION_URL=$DATABASE_URL npx knex migrate:latest" || s.Start == "" || s.Build != "npm ci" {
			t.Errorf("stack %s: git %v, base %q, runtime %q, database %+v, build %q\n%s", s.Name, s.Git, s.Base, s.Runtime, s.Database, s.Build, text)
		}
	}
}
