package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

const ownApp = `workload:
  name: conduit
  health: /api/tags
  setup:
    - name: articles
      scope: process
      repeat: 200
      method: POST
      path: /api/articles
      headers: {Authorization: "Token ${token}", Content-Type: application/json}
      body: '{"article":{"title":"Bench ${i}"}}'
      expect: [201]
      capture: {slugs: body.article.slug}
    - name: login
      scope: stack
      method: POST
      path: /api/users/login
      body: '{"user":{"password":"${env:BENCH_PASSWORD}"}}'
      capture: {token: body.user.token, auth: header.Authorization}
  cases:
    - name: article
      path: /api/articles/${slugs}
      ignore: [article.createdAt, article.updatedAt]
    - name: page
      path: /api/articles?limit=10&offset=${rand:0..190}
      ignore: ["articles.#.createdAt"]
    - name: me
      path: /api/user
      headers: {Authorization: "Token ${token}"}
      compare: exact
    - name: ids
      path: /api/users/${line:ids.txt}
      compare: status
    - name: post
      method: POST
      path: /api/articles
      body: '{}'
      expect: [201]
      inserts: true
      database: true
`

func TestScenarioKeys(t *testing.T) {
	path := writeConfig(t, ownApp+validStacks)
	os.WriteFile(filepath.Join(filepath.Dir(path), "ids.txt"), []byte("1\n2\n\n3\n"), 0o644)
	f, err := LoadEnv(path, func(k string) string { return map[string]string{"BENCH_PASSWORD": "pw"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	sc := f.Scenario
	if sc == nil || len(sc.Steps) != 2 || sc.Steps[0].Repeat != 200 || sc.Steps[0].Scope != scenario.ScopeProcess || sc.Steps[1].Scope != scenario.ScopeStack ||
		len(sc.Steps[1].Capture) != 2 || sc.Steps[1].Capture[1].Path != "header.Authorization" {
		t.Fatalf("scenario %+v", sc)
	}
	if sc.Env["BENCH_PASSWORD"] != "pw" || strings.Join(sc.Lines["ids.txt"], ",") != "1,2,3" {
		t.Errorf("env %v, lines %v", sc.Env, sc.Lines)
	}
	modes := map[string]string{}
	for _, c := range f.Workload.Cases {
		modes[c.Name] = c.Compare
		if _, ok := sc.Lookup(c.Name); ok != c.Templated {
			t.Errorf("case %s: templated %v, scenario has it %v", c.Name, c.Templated, ok)
		}
	}
	want := map[string]string{"article": workload.CompareJSON, "page": workload.CompareJSON, "me": workload.CompareExact, "ids": workload.CompareStatus, "post": workload.CompareStatus}
	for k, v := range want {
		if modes[k] != v {
			t.Errorf("case %s compares %q, want %q", k, modes[k], v)
		}
	}
	for name, want := range map[string]int{"article": 200, "page": scenario.RandVariants, "ids": 3, "me": 1, "post": 1} {
		c, _ := f.Workload.Case(name)
		if n, _, err := sc.Planned(c); err != nil || n != want {
			t.Errorf("case %s: %d variants planned (%v), want %d", name, n, err, want)
		}
	}
}

func TestScenarioProblemsAtLineAndColumn(t *testing.T) {
	src := `workload:
  name: conduit
  setup:
    - name: login
      path: /login?u=${who}
      capture: {token: body.token}
    - name: again
      scope: process
      path: /x/${i}
      capture: {bad: token}
  cases:
    - name: a
      path: /a/${tokne}
    - name: b
      path: "/b/${env:NOPE_NOT_SET}"
      body: '${rand:5..1}'
    - name: c
      path: /c/${line:missing.txt}
      compare: fuzzy
      ignore: [x]
    - name: d
      path: /d
      compare: status
      ignore: [x]
`
	_, err := LoadEnv(writeConfig(t, src+validStacks), noEnv)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		":5:22: setup step login: ${who} is not captured by a setup step that runs before it",
		":9:16: setup step again: ${i} is only defined in a setup step with repeat",
		":10:22: capture path \"token\" must start with body. or header.",
		":13:16: case a: ${tokne} is not captured",
		":15:17: case b: ${env:NOPE_NOT_SET} is not set in the environment",
		":16:14: case b: body: ${rand:5..1}: want whole numbers A ≤ B",
		":18:16: case c: ${line:missing.txt}: open",
		":19:16: unknown compare mode \"fuzzy\"",
		":24:15: ignore applies to compare: json, and this case compares status",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in\n%s", want, msg)
		}
	}
}

func TestWorkloadDatabaseAndServices(t *testing.T) {
	src := `workload:
  name: blog
  database:
    schema: [migrations/*.up.sql]
    seed: seed.sql
    reset: "TRUNCATE comments; VACUUM ANALYZE comments; UPDATE t SET v = 'a;b'"
  cases:
    - {name: a, path: /a, database: true}
stacks:
  - name: one
    dir: .
    start: ./app
    services: [6379, 5433]
`
	path := writeConfig(t, src)
	dir := filepath.Dir(path)
	os.MkdirAll(filepath.Join(dir, "migrations"), 0o755)
	os.WriteFile(filepath.Join(dir, "migrations", "002_b.up.sql"), []byte("CREATE TABLE b ();"), 0o644)
	os.WriteFile(filepath.Join(dir, "migrations", "001_a.up.sql"), []byte("CREATE TABLE a ();"), 0o644)
	os.WriteFile(filepath.Join(dir, "seed.sql"), []byte("INSERT INTO a DEFAULT VALUES;"), 0o644)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	fx := f.Fixture
	if fx == nil || len(fx.Schema) != 2 || filepath.Base(fx.Schema[0]) != "001_a.up.sql" || !fx.SeedFile || len(fx.Hash) != 64 {
		t.Fatalf("fixture %+v", fx)
	}
	if got := strings.Join(fx.Reset, " | "); got != "TRUNCATE comments | VACUUM ANALYZE comments | UPDATE t SET v = 'a;b'" {
		t.Errorf("reset %q", got)
	}
	if !f.Workload.NeedsDatabase || strings.Join(strings.Fields(strings.Trim(fmt.Sprint(f.Stacks[0].Services), "[]")), ",") != "6379,5433" {
		t.Errorf("needs database %v, services %v", f.Workload.NeedsDatabase, f.Stacks[0].Services)
	}
	// The hash follows the files' contents.
	os.WriteFile(filepath.Join(dir, "seed.sql"), []byte("INSERT INTO a DEFAULT VALUES; -- more"), 0o644)
	if g, _ := LoadEnv(path, noEnv); g == nil || g.Fixture.Hash == fx.Hash {
		t.Error("a changed seed kept the hash")
	}

	none := strings.Replace(src, `  database:
    schema: [migrations/*.up.sql]
    seed: seed.sql
    reset: "TRUNCATE comments; VACUUM ANALYZE comments; UPDATE t SET v = 'a;b'"
`, "  database: none\n", 1)
	if g, err := LoadEnv(writeConfig(t, none), noEnv); err != nil || g.Workload.NeedsDatabase || g.Fixture != nil {
		t.Errorf("database: none: %v", err)
	}

	bad := strings.Replace(strings.Replace(src, "migrations/*.up.sql", "nowhere/*.sql", 1), "seed: seed.sql", "seed: missing.sql", 1)
	bad = strings.Replace(bad, "[6379, 5433]", "[6379, 70000]", 1)
	_, err = LoadEnv(writeConfig(t, bad), noEnv)
	for _, want := range []string{`:4:14: schema "nowhere/*.sql" matches no file`, `:5:11: seed file missing.sql`, `:13:22: service port 70000 is not a TCP port`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}

// Paths a user may write absolutely, or from ~, are taken as written:
// schema globs, the seed file, ${line:…} files and a stack's dir.
func TestAbsoluteAndHomePaths(t *testing.T) {
	elsewhere, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(elsewhere, "migrations"), 0o755)
	os.WriteFile(filepath.Join(elsewhere, "migrations", "001_a.up.sql"), []byte("CREATE TABLE a ();"), 0o644)
	os.WriteFile(filepath.Join(home, "seed.sql"), []byte("INSERT INTO a DEFAULT VALUES;"), 0o644)
	os.WriteFile(filepath.Join(home, "ids.txt"), []byte("1\n2\n"), 0o644)
	src := `workload:
  name: blog
  database:
    schema: [` + elsewhere + `/migrations/*.up.sql]
    seed: ~/seed.sql
  cases:
    - {name: a, path: "/a/${line:~/ids.txt}", database: true}
stacks:
  - name: one
    dir: ~/
    start: ./app
`
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	f, err := LoadEnv(writeConfig(t, src), env)
	if err != nil {
		t.Fatal(err)
	}
	if fx := f.Fixture; fx == nil || len(fx.Schema) != 1 || fx.Seed != filepath.Join(home, "seed.sql") || !fx.SeedFile {
		t.Errorf("fixture %+v", fx)
	}
	if f.Stacks[0].Dir != home {
		t.Errorf("stack dir %s, want %s", f.Stacks[0].Dir, home)
	}

	// A file that is not a regular one is refused at once.
	fifo := strings.Replace(src, "~/ids.txt", "/dev/stdin", 1)
	if _, err := LoadEnv(writeConfig(t, fifo), env); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("${line:/dev/stdin}: %v", err)
	}
}
