package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

var fixtureKeys = []string{"schema", "setup", "seed", "reset"}

const fixtureExample = "database: {schema: [migrations/*.up.sql], seed: seed.sql, reset: \"TRUNCATE comments\"}"

// DatabaseFixture is a custom workload's own database (workload.database):
// a template database built once from it, a fresh copy for each run.
type DatabaseFixture struct {
	// Schema lists the SQL files applied in order (globs expanded, each
	// glob's files in name order), absolute.
	Schema []string `json:"schema,omitempty"`
	// Setup is a command run once, after the schema, in Dir with
	// DATABASE_URL set to the template.
	Setup string `json:"setup,omitempty"`
	// Seed is a SQL file (SeedFile, absolute) or a command, run last.
	Seed     string `json:"seed,omitempty"`
	SeedFile bool   `json:"seed_file,omitempty"`
	// Reset holds the statements run one by one before each window of a
	// case with inserts: true.
	Reset []string `json:"reset,omitempty"`
	// Dir is where the commands run: the comparison file's directory
	// for the workload's, the stack's dir for a stack's.
	Dir string `json:"-"`
	// Hash covers the files' contents and the commands' text: a template
	// built from another hash is built again.
	Hash string `json:"hash"`
}

// workloadDatabase reads workload.database: "none", or the fixture keys.
func (p *parser) workloadDatabase(n *yaml.Node) (fx *DatabaseFixture, none bool) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		if n.Value == "none" {
			return nil, true
		}
		p.addf(n, "workload database %s: write database: none (the app brings its own storage), or the keys of %s", describe(n), fixtureExample)
		return nil, false
	}
	return p.databaseFixture(n, fixtureForm{what: "the workload database", keys: fixtureKeys, command: "setup", example: fixtureExample, dir: p.dir}), false
}

// fixtureForm is what a database fixture's mapping may hold: the
// workload's (workload.database, its command under setup:, run in the
// file's directory) or a stack's (stack.database, its command under
// migrate:, run in the stack's dir).
type fixtureForm struct {
	what, command, example string
	keys                   []string
	// dir is where the commands run.
	dir string
}

// databaseFixture reads a database fixture's mapping; nil on a problem that
// leaves nothing to build.
func (p *parser) databaseFixture(n *yaml.Node, form fixtureForm) *DatabaseFixture {
	m, ok := p.fields(n, form.what, form.keys, form.example)
	if !ok {
		return nil
	}
	fx := &DatabaseFixture{Dir: form.dir}
	h := sha256.New()
	if form.dir != p.dir {
		// A stack's commands run in its own dir: two stacks with the
		// same command text build different templates. Relative to the
		// file, so that a moved checkout keeps its fingerprint.
		rel, err := filepath.Rel(p.dir, form.dir)
		if err != nil {
			rel = form.dir
		}
		fmt.Fprintf(h, "dir %s\n", filepath.ToSlash(rel))
	}
	if v := m.get("schema"); v != nil {
		items, _ := p.items(v, "schema", "schema: [migrations/*.up.sql]")
		for _, it := range items {
			pattern, ok := p.str(it, "a schema file", "migrations/*.up.sql")
			if !ok {
				continue
			}
			files, err := filepath.Glob(p.expandHome(pattern))
			if err != nil || len(files) == 0 {
				p.addf(it, "schema %q matches no file (looked for %s); write SQL files relative to %s, e.g. migrations/*.up.sql, or an absolute path", pattern, p.expandHome(pattern), filepath.Base(p.name))
				continue
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					p.addf(it, "schema file %s: %v", f, err)
					continue
				}
				fmt.Fprintf(h, "schema %s %d\n", filepath.Base(f), len(data))
				h.Write(data)
				fx.Schema = append(fx.Schema, f)
			}
		}
	}
	if v := m.get(form.command); v != nil {
		fx.Setup, _ = p.str(v, form.command, form.command+": ./bin/migrate up")
		fmt.Fprintf(h, "setup %s\n", fx.Setup)
	}
	if v := m.get("seed"); v != nil {
		if s, ok := p.str(v, "seed", "seed: seed.sql"); ok {
			path := p.expandHome(s)
			if data, err := os.ReadFile(path); err == nil {
				fx.Seed, fx.SeedFile = path, true
				fmt.Fprintf(h, "seed file %d\n", len(data))
				h.Write(data)
			} else if strings.HasSuffix(s, ".sql") {
				p.addf(v, "seed file %s: %v; write a SQL file relative to %s, or a command", s, err, filepath.Base(p.name))
			} else {
				fx.Seed = s
				fmt.Fprintf(h, "seed command %s\n", s)
			}
		}
	}
	if v := m.get("reset"); v != nil {
		fx.Reset = p.resetStatements(v)
	}
	if !m.has("schema") && !m.has(form.command) && !m.has("seed") {
		p.addf(n, "%s has no schema, %s or seed; add one, e.g. %s", form.what, form.command, form.example)
	}
	fx.Hash = hex.EncodeToString(h.Sum(nil))
	return fx
}

// resetStatements reads reset: one string of statements separated by ';'
// or a list of them.
func (p *parser) resetStatements(n *yaml.Node) []string {
	items, ok := p.items(n, "reset", `reset: "TRUNCATE comments; VACUUM ANALYZE comments"`)
	if !ok {
		return nil
	}
	var out []string
	for _, it := range items {
		s, ok := p.str(it, "reset", `reset: "TRUNCATE comments"`)
		if !ok {
			continue
		}
		out = append(out, splitStatements(s)...)
	}
	return out
}

// splitStatements splits SQL at the semicolons outside quotes, dropping
// empty statements.
func splitStatements(sql string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';':
			if s := strings.TrimSpace(sql[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(sql[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

var stackFixtureKeys = []string{"schema", "migrate", "seed", "reset"}

const stackFixtureExample = "database: {migrate: npx knex migrate:latest, seed: db/seed.sql, reset: \"TRUNCATE articles CASCADE\"}"

// stackDatabase reads a stack's own database (stack.database): its schema
// files, its migrate command (run in dir), its seed and its reset.
func (p *parser) stackDatabase(n *yaml.Node, dir, what string) *DatabaseFixture {
	return p.databaseFixture(n, fixtureForm{what: what + "'s database", keys: stackFixtureKeys, command: "migrate", example: stackFixtureExample, dir: dir})
}
