package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// TestDBUpBuildsTheFilesDatabase: db up in a directory whose
// stackbench.yaml has a workload database of its own builds that schema
// and seed, and a stack's own database beside it — and no saas-slice
// table; a second db up keeps what was written, db seed starts over.
func TestDBUpBuildsTheFilesDatabase(t *testing.T) {
	work := t.TempDir()
	for _, d := range []string{filepath.Dir(work), work} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	dbDir := filepath.Join(work, ".stackbench", "db")
	t.Cleanup(func() {
		if c, err := pgfix.Attach(dbDir); err == nil {
			c.Stop(context.Background())
		}
	})
	for name, text := range map[string]string{
		"schema.sql": "CREATE TABLE articles (id serial PRIMARY KEY, slug text NOT NULL);",
		"seed.sql":   "INSERT INTO articles (slug) SELECT 'a-' || i FROM generate_series(1, 7) i;",
		"go.sql":     "CREATE TABLE posts (id serial PRIMARY KEY, title text);",
		"stackbench.yaml": `workload:
  name: conduit
  database: {schema: [schema.sql], seed: seed.sql, reset: "DELETE FROM articles WHERE id > 7"}
  cases: [{name: list, path: /articles, database: true}]
stacks:
  - {name: node, dir: ., start: ./node}
  - {name: go-chi, dir: ., start: ./go, database: {schema: [go.sql], reset: "DELETE FROM posts WHERE title <> 'kept'; VACUUM ANALYZE posts"}}
  - {name: py, dir: ., start: ./py, database: {schema: [go.sql]}}
`,
	} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runMain(t, work, nil, "db", "up")
	if code != 0 {
		t.Fatalf("db up: exit %d\n%s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "DATABASE_URL=postgres://") || !strings.HasPrefix(lines[1], "go-chi: DATABASE_URL=postgres://") {
		t.Fatalf("db up printed:\n%s", out)
	}
	url := strings.TrimPrefix(lines[0], "DATABASE_URL=")
	goURL := strings.TrimPrefix(lines[1], "go-chi: DATABASE_URL=")
	if n := queryInt(t, url, "SELECT count(*) FROM articles"); n != 7 {
		t.Errorf("articles = %d, want the file's 7", n)
	}
	saas := "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('users', 'orders')"
	if n := queryInt(t, url, saas); n != 0 {
		t.Errorf("the workload's database has %d saas-slice tables", n)
	}
	if n := queryInt(t, goURL, "SELECT count(*) FROM posts") + queryInt(t, goURL, saas); n != 0 {
		t.Errorf("stack go-chi's database: %d rows and saas-slice tables, want its empty posts alone", n)
	}
	queryInt(t, url, "WITH i AS (INSERT INTO articles (slug) VALUES ('mine') RETURNING 1) SELECT count(*) FROM i")
	if code, out, errOut := runMain(t, work, nil, "db", "up"); code != 0 || queryInt(t, url, "SELECT count(*) FROM articles") != 8 {
		t.Errorf("a second db up (exit %d) did not keep the database as it was\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runMain(t, work, nil, "db", "seed"); code != 0 || queryInt(t, url, "SELECT count(*) FROM articles") != 7 {
		t.Errorf("db seed (exit %d) did not start over from the file's seed\n%s%s", code, out, errOut)
	}
	// db reset runs each database's own reset: statements, not the
	// saas-slice's orders reset (these schemas have no orders table),
	// and names the database whose file part has none.
	queryInt(t, url, "WITH i AS (INSERT INTO articles (slug) VALUES ('x'), ('y') RETURNING 1) SELECT count(*) FROM i")
	queryInt(t, goURL, "WITH i AS (INSERT INTO posts (title) VALUES ('kept'), ('gone'), ('gone') RETURNING 1) SELECT count(*) FROM i")
	code, out, errOut = runMain(t, work, nil, "db", "reset")
	if code != 0 {
		t.Fatalf("db reset: exit %d\n%s%s", code, out, errOut)
	}
	if n := queryInt(t, url, "SELECT count(*) FROM articles"); n != 7 {
		t.Errorf("db reset left %d articles, want the seed's 7\n%s", n, out)
	}
	if n := queryInt(t, goURL, "SELECT count(*) FROM posts"); n != 1 {
		t.Errorf("db reset left %d posts in go-chi's database, want the one its reset keeps\n%s", n, out)
	}
	for _, want := range []string{"database stackbench: reset by stackbench.yaml's workload.database.reset (DELETE FROM articles WHERE id > 7)",
		"stack go-chi's database stackbench_go_chi: reset by", "stack py's database stackbench_py: left as it is (stackbench.yaml has no database.reset of stack py"} {
		if !strings.Contains(out, want) {
			t.Errorf("db reset does not say %q:\n%s", want, out)
		}
	}
}
