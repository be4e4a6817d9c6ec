package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

func TestInitWritesAValidStarter(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runMain(t, dir, nil, "init", "--saas-slice")
	if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, "stackbench.yaml")) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	if err != nil || string(data) != plan.StarterYAML {
		t.Fatalf("written file differs from the starter (%v)", err)
	}
	// The file it wrote passes plan as it is.
	code, out, errOut = runMain(t, dir, nil, "plan")
	if code != 0 || !strings.Contains(out, "1. my-api") {
		t.Errorf("plan of the starter: exit %d\n%s%s", code, out, errOut)
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stackbench.yaml")
	if err := os.WriteFile(path, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runMain(t, dir, nil, "init")
	if code != 2 || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != "mine\n" {
		t.Fatalf("the file was changed: %q", data)
	}
	code, _, errOut = runMain(t, dir, nil, "init", "--force", "--saas-slice")
	if code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != plan.StarterYAML {
		t.Error("--force did not write the starter")
	}
}

func TestInitWritesAnAppStarterByDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my shop")
	os.MkdirAll(dir, 0o755)
	code, out, errOut := runMain(t, dir, nil, "init")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := f.Workload.Case("home")
	if f.Workload.Name != "my-shop" || f.Workload.NeedsDatabase || c.Compare != "json" || c.Path != "/" {
		t.Errorf("workload %+v", f.Workload)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	for _, key := range []string{"schema:", "setup:", "seed:", "reset:", "scope:", "capture:", "repeat:", "${rand:", "ignore:"} {
		if !strings.Contains(string(data), key) {
			t.Errorf("the starter does not point at %s", key)
		}
	}
}

func TestInitCompareWritesTwoRevisions(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "one")
	git("checkout", "-q", "-b", "topic")
	git("commit", "-q", "--allow-empty", "-m", "two")
	code, _, errOut := runMain(t, dir, nil, "init", "--compare", "main", "nope")
	if code != 2 || !strings.Contains(errOut, `unknown revision "nope"`) {
		t.Errorf("an unknown revision: exit %d: %s", code, errOut)
	}
	if code, _, errOut = runMain(t, dir, nil, "init", "--compare", "main", "HEAD"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Stacks) != 2 || f.Stacks[0].Git == nil || f.Stacks[0].Git.Rev != "main" || f.Stacks[1].Git.Rev != "HEAD" ||
		f.Stacks[0].Git.Commit == f.Stacks[1].Git.Commit {
		t.Errorf("stacks %+v", f.Stacks)
	}
}

func TestInitFromOpenAPI(t *testing.T) {
	dir := t.TempDir()
	doc := `openapi: 3.0.3
info: {title: pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - {name: limit, in: query, required: true, schema: {type: integer, example: 20}}
      responses: {"200": {description: ok}}
    post:
      responses: {"201": {description: made}}
  /pets/{petId}:
    get:
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
      responses: {"200": {description: ok}}
  /owners/{ownerId}:
    get:
      operationId: getOwner
      parameters:
        - {name: ownerId, in: path, required: true, example: 7, schema: {type: integer}}
      responses: {"200": {description: ok}}
`
	os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(doc), 0o644)
	if code, _, errOut := runMain(t, dir, nil, "init", "--openapi", "api.yaml"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	for _, want := range []string{"name: getOwner\n      path: /owners/7", "name: listPets\n      path: /pets?limit=20",
		`name: pets-petId`, `path: /pets/${TODO_petId}`, "TODO: the document gives no example for petId"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("missing %q in\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "post") {
		t.Error("a POST operation became a case")
	}
	// The placeholder is a plan error at its place until it gets a value.
	_, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err == nil || !strings.Contains(err.Error(), "${TODO_petId} is not captured") {
		t.Errorf("plan: %v", err)
	}
}

// gitRepo makes a repository in a fresh directory with a commit on main
// and one on topic (checked out); it returns the directory and a function
// running git in it.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "one")
	git("checkout", "-q", "-b", "topic")
	git("commit", "-q", "--allow-empty", "-m", "two")
	return dir, git
}

// TestPlanShowsEachGitCommit: the text plan names the commit each git:
// stack resolves to, as plan -o json and parity do.
func TestPlanShowsEachGitCommit(t *testing.T) {
	dir, git := gitRepo(t)
	yaml := "workload:\n  name: app\n  health: /\n  cases: [{name: home, path: /}]\nstacks:\n" +
		"  - {name: base, dir: ., git: main, build: go build -o app ., start: ./app}\n" +
		"  - {name: head, dir: ., git: HEAD, build: go build -o app ., start: ./app}\n"
	if err := os.WriteFile(filepath.Join(dir, "stackbench.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runMain(t, dir, nil, "plan")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, rev := range []string{"main", "HEAD"} {
		commit := git("rev-parse", rev)
		if want := "git " + rev + " = " + commit[:12]; !strings.Contains(out, want) {
			t.Errorf("the plan does not show %q:\n%s", want, out)
		}
	}
}

// TestInitCompareReadsTheRepository: on a repository with migrations, a
// main package under cmd/, an OpenAPI file with a health route and a
// database URL read from its own variable, init --compare writes what it
// found, each with where it came from, and the file loads as it is.
func TestInitCompareReadsTheRepository(t *testing.T) {
	dir, git := gitRepo(t)
	files := map[string]string{
		"go.mod":                        "module example.com/albums\n\ngo 1.22\n",
		"cmd/server/main.go":            "package main\n\nimport (\n\t\"net/http\"\n\t\"os\"\n)\n\nfunc main() {\n\tdsn := os.Getenv(\"ALBUMS_DB_DSN\")\n\t_ = dsn\n\thttp.HandleFunc(\"/healthz\", nil)\n}\n",
		"cmd/migrate/main.go":           "package main\n\nfunc main() {}\n",
		"internal/store/store.go":       "package store\n",
		"migrations/0001_init.up.sql":   "CREATE TABLE albums (id int);\n",
		"migrations/0001_init.down.sql": "DROP TABLE albums;\n",
		"migrations/0002_users.up.sql":  "CREATE TABLE users (id int);\n",
		"api/openapi.yaml":              "openapi: 3.0.3\ninfo: {title: albums, version: \"1\"}\npaths:\n  /albums:\n    get: {responses: {\"200\": {description: ok}}}\n  /api/health:\n    get: {responses: {\"200\": {description: ok}}}\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("commit", "-q", "-m", "app")
	if code, _, errOut := runMain(t, dir, nil, "init", "--compare", "main", "HEAD"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	text := string(data)
	for _, want := range []string{
		"schema: [migrations/*.up.sql]", "found 2 files there",
		"health: /api/health", "from api/openapi.yaml",
		"build: go build -o bin/app ./cmd/server", "a guess among the main packages cmd/server, cmd/migrate",
		"start: ALBUMS_DB_DSN=$DATABASE_URL ./bin/app", "reads its database URL from ALBUMS_DB_DSN (cmd/server/main.go)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the starter lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "database: none") {
		t.Errorf("the starter says database: none beside migrations:\n%s", text)
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatalf("the starter does not load: %v", err)
	}
	if !f.Workload.NeedsDatabase || f.Stacks[0].Health != "/api/health" {
		t.Errorf("workload %+v, stacks %+v", f.Workload, f.Stacks)
	}
}

// TestInitFindsAHealthRouteInTheSource: without an OpenAPI file, a health
// path written in the Go source is the health route.
func TestInitFindsAHealthRouteInTheSource(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { route(`/healthz`) }\n"), 0o644)
	if code, _, errOut := runMain(t, dir, nil, "init"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	for _, want := range []string{"health: /healthz", "a route named in main.go", "build: go build -o bin/app .", "the main package found in ."} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the starter lacks %q:\n%s", want, data)
		}
	}
}

// Colliding case names get -2, -3, … in one step each: 2,000 of them stay
// short and distinct.
func TestUniqueNameOfManyCollisions(t *testing.T) {
	seen, next := map[string]bool{}, map[string]int{}
	for i := range 2000 {
		name := uniqueName(seen, next, "get-item")
		if want := "get-item"; i == 0 && name != want || i > 0 && name != want+"-"+strconv.Itoa(i+1) {
			t.Fatalf("name %d = %q", i, name)
		}
	}
	if len(seen) != 2000 || uniqueName(seen, next, "get-item-2") != "get-item-2-2" {
		t.Errorf("%d names; a base that is itself taken: %q", len(seen), uniqueName(seen, next, "get-item-2"))
	}
}
