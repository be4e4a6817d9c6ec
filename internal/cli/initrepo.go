package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
)

// repoFacts is what `stackbench init` reads from the app's repository so
// that the starter says what the app has rather than a placeholder: its
// migrations, its main package, a health route, and the variable it reads
// its database URL from. Each fact carries where it was found.
type repoFacts struct {
	schema     []string
	schemaNote string
	health     string
	healthNote string
	build      plan.StarterBuild
}

// migrationGlobs are where SQL migrations usually live, most specific
// first; the first that matches files is taken.
var migrationGlobs = []string{
	"migrations/*.up.sql", "db/migrations/*.up.sql", "migrate/*.up.sql", "sql/migrations/*.up.sql",
	"migrations/*.sql", "db/migrations/*.sql", "sql/schema/*.sql", "db/schema.sql", "schema.sql",
}

// openAPIFiles are where an OpenAPI document usually lives.
var openAPIFiles = []string{
	"openapi.yaml", "openapi.yml", "openapi.json", "api/openapi.yaml", "api/openapi.yml", "api/openapi.json",
	"docs/openapi.yaml", "docs/openapi.yml", "docs/openapi.json", "swagger.yaml", "swagger.json", "docs/swagger.yaml", "docs/swagger.json",
}

// healthPath matches a health route's path.
var healthPath = regexp.MustCompile(`^/(?:[a-z0-9_-]+/)*(?:health|healthz|healthcheck|livez|readyz|ready|ping|status)$`)

// healthLiteral finds such a path as a string literal in Go source.
var healthLiteral = regexp.MustCompile("[\"`](/(?:[a-z0-9_-]+/)*(?:health|healthz|healthcheck|livez|readyz|ping))[\"`]")

// openAPIPath finds the keys of an OpenAPI document's paths, in YAML
// ("  /health:") or JSON (`"/health": {`).
var openAPIPath = regexp.MustCompile(`(?m)^\s*["']?(/[^"'\s:{}]*)["']?\s*:`)

// dbEnv finds the environment variable a Go program reads a database URL
// from: os.Getenv("DB_DSN"), os.LookupEnv("POSTGRES_URL").
var dbEnv = regexp.MustCompile(`os\.(?:Getenv|LookupEnv)\("([A-Z0-9_]*(?:(?:DATABASE|DB|POSTGRES|PG)[A-Z0-9_]*(?:URL|URI|DSN)|DSN))"\)`)

// inspectRepo reads the repository at dir. It never fails: what it cannot
// read it leaves to the starter's placeholders.
func inspectRepo(dir string) repoFacts {
	var rf repoFacts
	for _, g := range migrationGlobs {
		if m, _ := filepath.Glob(filepath.Join(dir, g)); len(m) > 0 {
			rf.schema = []string{g}
			rf.schemaNote = "found " + countNoun(len(m), "file") + " there"
			break
		}
	}
	for _, name := range openAPIFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		for _, m := range openAPIPath.FindAllStringSubmatch(string(data), -1) {
			if healthPath.MatchString(m[1]) {
				rf.health, rf.healthNote = m[1], "from "+name
				break
			}
		}
		if rf.health != "" {
			break
		}
	}
	mains, sources := goPackages(dir)
	if rf.health == "" {
		for _, src := range sources {
			if m := healthLiteral.FindSubmatch(src.text); m != nil {
				rf.health, rf.healthNote = string(m[1]), "a route named in "+src.name
				break
			}
		}
	}
	rf.build = starterBuild(dir, mains, sources)
	if len(mains) == 0 && !fileIn(dir, "go.mod") {
		// Not a Go app: a Node.js or TypeScript one, or a Python one.
		if sb, ok := nodeBuild(dir); ok {
			rf.build = sb
			rf.scriptHealth(dir, []string{".js", ".ts", ".mjs", ".cjs"})
		} else if sb, ok := pythonBuild(dir); ok {
			rf.build = sb
			rf.scriptHealth(dir, []string{".py"})
		}
		if rf.build.Migrate != "" {
			// The app's own migrations build its database: an SQL file
			// beside them is most likely a dump.
			rf.schema = nil
		}
	}
	return rf
}

// scriptLiteral finds a health route's path as a string literal in
// JavaScript, TypeScript or Python: "/health", or Django's "healthz/".
var scriptLiteral = regexp.MustCompile("[\"'`](/?(?:[a-z0-9_-]+/)*(?:health|healthz|healthcheck|livez|readyz|ping))(/?)[\"'`]")

// scriptHealth looks for a health route in the sources with exts, when
// none was found yet.
func (rf *repoFacts) scriptHealth(dir string, exts []string) {
	if rf.health != "" {
		return
	}
	for _, src := range sourceFiles(dir, exts, 1000) {
		for _, m := range scriptLiteral.FindAllSubmatch(src.text, -1) {
			// A bare word ("ping") is no route: it needs a slash.
			if m[1][0] == '/' || len(m[2]) > 0 {
				rf.health, rf.healthNote = "/"+strings.TrimPrefix(string(m[1]), "/")+string(m[2]), "a route named in "+src.name
				return
			}
		}
	}
}

// goSource is one Go file of the repository.
type goSource struct {
	name string // relative to the repository
	text []byte
}

// goPackages walks the repository's Go files (not tests, vendor or
// testdata) and returns the directories of its main packages, relative
// and in walk order, and the files.
func goPackages(dir string) (mains []string, sources []goSource) {
	const maxFiles = 2000
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "vendor", "node_modules", "testdata", "results", ".stackbench-worktrees":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || len(sources) >= maxFiles {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		sources = append(sources, goSource{name: filepath.ToSlash(rel), text: text})
		if isMainPackage(text) {
			if pkg := filepath.ToSlash(filepath.Dir(rel)); !slices.Contains(mains, pkg) {
				mains = append(mains, pkg)
			}
		}
		return nil
	})
	return mains, sources
}

var mainPackage = regexp.MustCompile(`(?m)^package main\b[\s\S]*^func main\(\)`)

func isMainPackage(text []byte) bool { return mainPackage.Match(text) }

// starterBuild builds the main package that serves the app: the one at the
// top, else one under cmd/ that sounds like a server, else the only one;
// with several, the comment lists the others. A database URL read from a
// variable other than DATABASE_URL is passed on in start.
func starterBuild(dir string, mains []string, sources []goSource) plan.StarterBuild {
	var sb plan.StarterBuild
	if len(mains) == 0 {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			sb.Build, sb.BuildNote = "go build -o bin/app .", "a guess: no main package found; name yours"
		}
	} else {
		pick := mains[0]
		for _, want := range []string{".", "cmd/server", "cmd/api", "cmd/app", "cmd/web", "cmd/" + filepath.Base(dir)} {
			if slices.Contains(mains, want) {
				pick = want
				break
			}
		}
		pkg := "./" + pick
		if pick == "." {
			pkg = "."
		}
		sb.Build = "go build -o bin/app " + pkg
		sb.BuildNote = "the main package found in " + pick
		if len(mains) > 1 {
			others := slices.DeleteFunc(slices.Clone(mains), func(m string) bool { return m == pick })
			sb.BuildNote = "a guess among the main packages " + pick + ", " + strings.Join(others, ", ")
		}
	}
	for _, src := range sources {
		m := dbEnv.FindSubmatch(src.text)
		if m == nil {
			continue
		}
		name := string(m[1])
		if name == "DATABASE_URL" {
			break
		}
		sb.Start = name + "=$DATABASE_URL ./bin/app"
		sb.StartNote = "the app reads its database URL from " + name + " (" + src.name + "); stackbench sets DATABASE_URL; must listen on 127.0.0.1:$PORT"
		break
	}
	return sb
}
