package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// copyFixture copies the fixture repository testdata/init/name into a
// temporary directory, where init may write.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", "init", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestInitOnNodeAndPythonApps: init on a Koa app with knex migrations, a
// Django project and a FastAPI app writes the build, start (with the
// app's own port and database variables), runtime, migration and health
// lines they show, a guess marked as one, and a file plan accepts.
func TestInitOnNodeAndPythonApps(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    []string
		absent  []string
	}{
		{"node-knex", []string{
			"build: npm ci # npm (from package-lock.json)",
			"start: APP_PORT=$PORT DB_CONNECTION_URL=$DATABASE_URL npm run start",
			"runtime: node",
			"migrate: DB_CONNECTION_URL=$DATABASE_URL npx knex migrate:latest # knex is a dependency and a knexfile is here",
			"health: /api/health # polled until it answers 200; a route named in src/server.js",
		}, []string{"schema.sql", "go build", "database: none"}},
		{"django", []string{
			"build: pip install -r requirements.txt # requirements.txt; a guess",
			"start: gunicorn mysite.wsgi -b 127.0.0.1:$PORT",
			"runtime: python",
			"migrate: python manage.py migrate",
			"health: /healthz/",
		}, []string{"go build", "database: none"}},
		{"fastapi", []string{
			"build: uv sync --frozen # uv (from uv.lock)",
			"start: PG_DSN=$DATABASE_URL uvicorn app.main:api --host 127.0.0.1 --port $PORT",
			"migrate: PG_DSN=$DATABASE_URL alembic upgrade head # alembic.ini is here",
			"health: /ping",
		}, []string{"go build", "database: none"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			dir := copyFixture(t, tc.fixture)
			if code, _, errOut := runMain(t, dir, nil, "init"); code != ExitOK {
				t.Fatalf("init: exit %d\n%s", code, errOut)
			}
			b, err := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the starter lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("the starter has %q:\n%s", a, got)
				}
			}
			f, err := plan.LoadEnv(filepath.Join(dir, "stackbench.yaml"), func(string) string { return "" })
			if err != nil {
				t.Fatalf("plan refuses the starter: %v\n%s", err, got)
			}
			if s := f.Stacks[0]; s.Database == nil || s.Database.Setup == "" || s.Runtime == "" {
				t.Errorf("the stack's database %+v, runtime %q", s.Database, s.Runtime)
			}
		})
	}
}

// TestInitOpenAPIKeepsBaseAndAuth: init --openapi keeps the servers:
// base path as the stack's base:, and a secured operation's case sends
// its scheme's header with an ${env:…} value (a bearer token, an API key
// header); an open one sends none. plan accepts the file once the
// variables are set.
func TestInitOpenAPIKeepsBaseAndAuth(t *testing.T) {
	dir := t.TempDir()
	doc := `openapi: 3.0.3
info: {title: conduit, version: "1"}
servers: [{url: "https://conduit.example.com/{prefix}/", variables: {prefix: {default: api}}}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    key: {type: apiKey, in: header, name: X-Api-Key}
paths:
  /user:
    get:
      operationId: currentUser
      security: [{bearer: []}]
      responses: {"200": {description: ok}}
  /tags:
    get:
      operationId: tags
      responses: {"200": {description: ok}}
  /profiles/me:
    get:
      operationId: me
      security: [{key: []}]
      responses: {"200": {description: ok}}
`
	os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(doc), 0o644)
	if code, _, errOut := runMain(t, dir, nil, "init", "--openapi", "api.yaml"); code != ExitOK {
		t.Fatalf("init --openapi: exit %d\n%s", code, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	got := string(b)
	for _, want := range []string{
		"base: /api ",
		"from servers: in api.yaml",
		"Authorization: Bearer ${env:API_TOKEN}",
		"X-Api-Key: ${env:API_KEY}",
		"secured (bearer): set API_TOKEN",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the starter lacks %q:\n%s", want, got)
		}
	}
	if i := strings.Index(got, "name: tags"); i < 0 || strings.Contains(got[i:i+120], "headers:") {
		t.Errorf("the open operation tags sends a header, or is missing:\n%s", got)
	}
	f, err := plan.LoadEnv(filepath.Join(dir, "stackbench.yaml"), func(k string) string { return map[string]string{"API_TOKEN": "t0ken", "API_KEY": "k3y"}[k] })
	if err != nil {
		t.Fatalf("plan refuses the starter: %v\n%s", err, got)
	}
	if s := f.Stacks[0]; s.Base != "/api" {
		t.Errorf("stack base %q, want /api", s.Base)
	}
	want := map[string][2]string{"currentUser": {"Authorization", "Bearer ${env:API_TOKEN}"}, "me": {"X-Api-Key", "${env:API_KEY}"}, "tags": {}}
	for _, c := range f.Workload.Cases {
		w, ok := want[c.Name]
		if !ok {
			continue
		}
		delete(want, c.Name)
		var got [2]string
		for _, h := range c.Header {
			got = [2]string{h.Name, h.Value}
		}
		if len(c.Header) > 1 || got != w {
			t.Errorf("case %s sends %v, want %v", c.Name, c.Header, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("cases missing: %v", want)
	}
}
