package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
)

// packageJSON is what init reads of a Node.js app's package.json.
type packageJSON struct {
	Main            string            `json:"main"`
	Scripts         map[string]string `json:"scripts"`
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
}

func (p packageJSON) has(dep string) bool {
	_, a := p.Dependencies[dep]
	_, b := p.DevDependencies[dep]
	return a || b
}

// packageManagers are the lockfiles that name a Node.js package manager,
// with its install command and how it runs a script.
var packageManagers = []struct{ lock, name, install, run string }{
	{"pnpm-lock.yaml", "pnpm", "pnpm install --frozen-lockfile", "pnpm run"},
	{"yarn.lock", "yarn", "yarn install --frozen-lockfile", "yarn run"},
	{"bun.lockb", "bun", "bun install --frozen-lockfile", "bun run"},
	{"bun.lock", "bun", "bun install --frozen-lockfile", "bun run"},
	{"package-lock.json", "npm", "npm ci", "npm run"},
}

// nodeEnvVar finds what a Node.js program reads from its environment.
var nodeEnvVar = regexp.MustCompile(`process\.env\.([A-Z][A-Z0-9_]*)|process\.env\[['"]([A-Z][A-Z0-9_]*)['"]\]`)

// nodeBuild reads a Node.js or TypeScript app (package.json in dir): the
// lockfile's package manager, its build and start scripts, the migration
// tool it depends on, and the variables it reads its port and database
// URL from. ok is false without a readable package.json.
func nodeBuild(dir string) (sb plan.StarterBuild, ok bool) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return sb, false
	}
	var pkg packageJSON
	if err := json.Unmarshal(data, &pkg); err != nil {
		return sb, false
	}
	// Without a lockfile npm ci fails: npm install.
	pm := packageManagers[len(packageManagers)-1]
	pm.install = "npm install"
	pmNote := "a guess: no lockfile, so npm"
	for _, m := range packageManagers {
		if fileIn(dir, m.lock) {
			pm, pmNote = m, m.name+" (from "+m.lock+")"
			break
		}
	}
	sb.Runtime = "node"
	sb.Build, sb.BuildNote = pm.install, pmNote
	if _, ok := pkg.Scripts["build"]; ok {
		sb.Build += " && " + pm.run + " build"
		sb.BuildNote += "; its build script"
	}
	switch {
	case pkg.Scripts["start"] != "":
		sb.Start, sb.StartNote = pm.run+" start", "its start script ("+pkg.Scripts["start"]+")"
	case pkg.Main != "":
		sb.Start, sb.StartNote = "node "+pkg.Main, "package.json's main"
	default:
		sb.Start, sb.StartNote = "node index.js", "a guess: no start script or main"
	}
	sb.Migrate, sb.MigrateNote = nodeMigrate(dir, pkg, pm.run)
	port, db := nodeEnv(dir)
	sb.Start, sb.StartNote = withEnvNames(sb.Start, sb.StartNote, port, db)
	sb.Migrate = withDatabaseVar(sb.Migrate, db)
	return sb, true
}

// nodeMigrate is the command that applies a Node.js app's migrations: its
// own migrate script when it has one, else its migration tool's command.
func nodeMigrate(dir string, pkg packageJSON, run string) (string, string) {
	for _, name := range []string{"migrate", "db:migrate", "migrate:latest", "migration:run", "migrate:deploy"} {
		if s, ok := pkg.Scripts[name]; ok {
			return run + " " + name, "its " + name + " script (" + s + ")"
		}
	}
	tools := []struct{ dep, command, note string }{
		{"prisma", "npx prisma migrate deploy", "prisma is a dependency"},
		{"knex", "npx knex migrate:latest", "knex is a dependency"},
		{"sequelize", "npx sequelize-cli db:migrate", "sequelize is a dependency"},
		{"drizzle-kit", "npx drizzle-kit migrate", "drizzle-kit is a dependency"},
		{"typeorm", "npx typeorm migration:run -d " + typeormDataSource(dir), "typeorm is a dependency"},
		{"kysely", "npx kysely migrate:latest", "a guess: kysely is a dependency and has no CLI of its own; kysely-ctl's command"},
	}
	for _, t := range tools {
		if pkg.has(t.dep) {
			note := t.note
			if !strings.HasPrefix(note, "a guess") {
				note = "a guess: " + note
			}
			if t.dep == "knex" && fileIn(dir, "knexfile.js", "knexfile.ts") {
				note = "knex is a dependency and a knexfile is here"
			}
			return t.command, note
		}
	}
	return "", ""
}

// typeormDataSource guesses a TypeORM app's data source file.
func typeormDataSource(dir string) string {
	for _, f := range []string{"src/data-source.ts", "src/data-source.js", "data-source.ts", "data-source.js", "src/db/data-source.ts"} {
		if fileIn(dir, f) {
			return f
		}
	}
	return "src/data-source.ts"
}

func fileIn(dir string, names ...string) bool {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// nodeEnv finds, in a Node.js app's sources, the variables it reads its
// port and its database URL from ("" when none, or the usual ones).
func nodeEnv(dir string) (port, db envSource) {
	for _, src := range sourceFiles(dir, []string{".js", ".ts", ".mjs", ".cjs"}, 500) {
		for _, m := range nodeEnvVar.FindAllSubmatch(src.text, -1) {
			name := string(m[1]) + string(m[2])
			switch {
			case port.name == "" && (name == "PORT" || strings.HasSuffix(name, "_PORT")) && !strings.Contains(name, "DB") && !strings.Contains(name, "PG"):
				port = envSource{name, src.name}
			case db.name == "" && dbVarName.MatchString(name):
				db = envSource{name, src.name}
			}
		}
	}
	return port, db
}

// envSource is a variable a program reads, and the file it was seen in.
type envSource struct{ name, file string }

// dbVarName matches a database URL's variable.
var dbVarName = regexp.MustCompile(`^[A-Z0-9_]*(?:(?:DATABASE|DB|POSTGRES|PG)[A-Z0-9_]*(?:URL|URI|DSN)|DSN|PG_CONNECTION_STRING)$`)

// withEnvNames puts the harness's PORT and DATABASE_URL into the
// variables the app reads them from, when they are other names.
func withEnvNames(start, note string, port, db envSource) (string, string) {
	var set []string
	if port.name != "" && port.name != "PORT" {
		set = append(set, port.name+"=$PORT")
		note += "; the app reads its port from " + port.name + " (" + port.file + ")"
	} else if port.name == "" {
		note += "; a guess: no port variable found, it must listen on 127.0.0.1:$PORT"
	}
	if db.name != "" && db.name != "DATABASE_URL" {
		set = append(set, db.name+"=$DATABASE_URL")
		note += "; its database URL from " + db.name + " (" + db.file + ")"
	}
	if len(set) > 0 {
		start = strings.Join(set, " ") + " " + start
	}
	return start, note
}

// withDatabaseVar puts the harness's DATABASE_URL into the variable a
// migration command reads, when it is another one.
func withDatabaseVar(command string, db envSource) string {
	if command == "" || db.name == "" || db.name == "DATABASE_URL" {
		return command
	}
	return db.name + "=$DATABASE_URL " + command
}

// sourceFiles reads up to max files of the repository with one of exts
// (not in dependency, test data or build directories).
func sourceFiles(dir string, exts []string, max int) []goSource {
	var out []goSource
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= max {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "vendor", "node_modules", "testdata", "results", "dist", "build", ".venv", "venv", "__pycache__", ".stackbench-worktrees":
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains(exts, filepath.Ext(path)) || d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, goSource{name: filepath.ToSlash(rel), text: text})
		return nil
	})
	return out
}
