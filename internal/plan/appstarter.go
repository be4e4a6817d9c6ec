package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// StarterApp is what `stackbench init` found in the app's repository, for
// AppStarter; the zero value of a field means nothing was found, and the
// starter then writes the usual placeholder with its comment.
type StarterApp struct {
	// Name is the workload's name.
	Name string
	// Health is the path polled until the first 200; HealthNote says where
	// it was found ("from openapi.yaml").
	Health, HealthNote string
	// Schema are the SQL migration files found, as globs in order;
	// SchemaNote says where. With a schema the workload gets the run's
	// PostgreSQL.
	Schema     []string
	SchemaNote string
	// Stacks is the stacks section (AppStacks or CompareStacks).
	Stacks string
	// OwnDatabase is true when the stacks bring their own database (a
	// migrate: command found): the workload then says so instead of
	// database: none.
	OwnDatabase bool
	// Cases are the cases (nil: one GET of /).
	Cases []StarterCase
	// CasesYAML, when set, replaces Cases: the items of the cases list,
	// already encoded (a YAML sequence at column 0, as yaml.Encoder
	// writes it), indented here under cases:.
	CasesYAML string
}

// AppStarter is the custom-workload file `stackbench init` writes for an
// app: one GET case compared as JSON unless Cases say otherwise, what the
// repository showed (its health route, its migrations) with a comment on
// where it came from, and a comment on each key a real app soon needs.
func AppStarter(app StarterApp) string {
	cases := app.Cases
	if len(cases) == 0 {
		cases = []StarterCase{{Name: "home", Path: "/", Ignore: true}}
	}
	health := "health: /                 # polled until it answers 200; e.g. /health (a guess: none found)"
	if app.Health != "" {
		health = fmt.Sprintf("health: %s   # polled until it answers 200; %s", yamlScalar(app.Health), yamlComment(app.HealthNote))
	}
	database := `database: none            # the app brings its own storage; or give it yours:
  # database:
  #   schema: [migrations/*.up.sql]   # SQL files, in order, into a template database`
	if app.OwnDatabase && len(app.Schema) == 0 {
		database = `# database: the stack's own, built by its migrate: command (stacks: below)`
	}
	if len(app.Schema) > 0 {
		quoted := make([]string, len(app.Schema))
		for i, g := range app.Schema {
			quoted[i] = yamlScalar(g)
		}
		database = fmt.Sprintf(`database:                 # the run's PostgreSQL, with your schema (%s)
    schema: [%s]   # SQL files, in order, into a template database`, yamlComment(app.SchemaNote), strings.Join(quoted, ", "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# stackbench.yaml: your own app, measured as you change it.
# Check it with 'stackbench plan', run it with 'stackbench run'.
# The format is in docs/config.md; a worked example is examples/blog.
workload:
  name: %s
  %s
  %s
  #   setup: ./bin/migrate up         # or a command, with DATABASE_URL set
  #   seed: seed/seed.sql             # SQL file or command, once
  #   reset: "TRUNCATE comments"      # before each window of a case with inserts: true
  # setup:                  # requests to each stack before parity and the windows
  #   - name: login
  #     scope: stack        # stack: once per stack; process: each fresh process
  #     method: POST
  #     path: /api/users/login
  #     headers: {Content-Type: application/json}
  #     body: '{"user":{"email":"bench@example.com","password":"benchbench"}}'
  #     capture: {token: body.user.token}   # gjson paths: body.<path>, header.<Name>
  #   - name: items
  #     repeat: 100         # ${i} = 1..100; a capture becomes a list
  #     method: POST
  #     path: /api/items
  #     headers: {Authorization: "Token ${token}"}
  #     body: '{"name":"item ${i}"}'
  #     capture: {ids: body.item.id}
  cases:                    # ${ids} cycles over a list, ${rand:1..100} draws, ${env:NAME}, ${line:FILE}
`, yamlScalar(app.Name), health, database)
	if app.CasesYAML != "" {
		cases = nil
		for _, line := range strings.SplitAfter(app.CasesYAML, "\n") {
			if strings.TrimSpace(line) != "" {
				b.WriteString("    " + line)
			}
		}
	}
	for _, c := range cases {
		if c.Comment != "" {
			fmt.Fprintf(&b, "    # %s\n", yamlComment(c.Comment))
		}
		fmt.Fprintf(&b, "    - name: %s\n      path: %s\n      compare: json       # exact | json | status | none\n", yamlScalar(c.Name), yamlScalar(c.Path))
		if len(c.Header) > 0 {
			b.WriteString("      headers:\n")
			for _, h := range c.Header {
				fmt.Fprintf(&b, "        %s: %s\n", yamlScalar(h[0]), yamlScalar(h[1]))
			}
		}
		if c.Ignore {
			b.WriteString("      # ignore: [createdAt, \"items.#.updatedAt\"]   # paths left out of the comparison\n")
		}
	}
	b.WriteString(`profile: quick
`)
	b.WriteString(app.Stacks)
	return b.String()
}

// StarterCase is one case of a starter file.
type StarterCase struct {
	Name, Path string
	// Comment is written above the case (where a placeholder needs a
	// value, say).
	Comment string
	Ignore  bool
	// Header is a header the case sends (its security scheme's), as
	// name and value.
	Header [][2]string
}

// StarterBuild is how a starter builds and starts the app: what init
// found in the repository, each with a comment saying so or that it is a
// guess. The zero value is the usual placeholder.
type StarterBuild struct {
	// Build and Start are the commands; BuildNote and StartNote their
	// comments.
	Build, BuildNote string
	Start, StartNote string
	// Runtime is the stack's runtime: (node, python…); empty for none.
	Runtime string
	// Base is the stack's base path (an OpenAPI document's servers:),
	// BaseNote where it came from; empty for none.
	Base, BaseNote string
	// Migrate is the command that applies the app's migrations (the
	// stack's database: migrate:), MigrateNote where it was found; empty
	// when none was.
	Migrate, MigrateNote string
}

func (sb StarterBuild) orDefault() StarterBuild {
	if sb.Build == "" {
		sb.Build, sb.BuildNote = "go build -o bin/app .", "your build command, or remove the line"
	}
	if sb.Start == "" {
		sb.Start, sb.StartNote = "./bin/app", "must listen on 127.0.0.1:$PORT"
	}
	return sb
}

// StarterStacks is a starter's stacks section: the app in this directory.
var StarterStacks = AppStacks(StarterBuild{})

// AppStacks is a starter's stacks section for the app in this directory,
// built and started as sb says.
func AppStacks(sb StarterBuild) string {
	sb = sb.orDefault()
	return fmt.Sprintf(`stacks:
  - name: app
    dir: .
    build: %s     # %s
    start: %s                 # %s
`, yamlScalar(sb.Build), yamlComment(sb.BuildNote), yamlScalar(sb.Start), yamlComment(sb.StartNote)) + sb.extra("    ")
}

// extra is a stack's runtime: and database: lines, when init found them.
func (sb StarterBuild) extra(indent string) string {
	var b strings.Builder
	if sb.Base != "" {
		fmt.Fprintf(&b, "%sbase: %s                # every path goes under it; %s\n", indent, yamlScalar(sb.Base), yamlComment(sb.BaseNote))
	}
	if sb.Runtime != "" {
		fmt.Fprintf(&b, "%sruntime: %s             # a JIT runtime gets the longer warm-up\n", indent, yamlScalar(sb.Runtime))
	}
	if sb.Migrate != "" {
		fmt.Fprintf(&b, "%sdatabase:                 # this stack's own template: migrations run once, before anything is measured\n", indent)
		fmt.Fprintf(&b, "%s  migrate: %s   # %s; run here with DATABASE_URL set\n", indent, yamlScalar(sb.Migrate), yamlComment(sb.MigrateNote))
		fmt.Fprintf(&b, "%s  # seed: db/seed.sql       # a SQL file or a command, after the migrations\n", indent)
		fmt.Fprintf(&b, "%s  # reset: \"TRUNCATE comments\"   # before each window of a case with inserts: true\n", indent)
	}
	return b.String()
}

// CompareStacks is a starter's stacks section for two revisions of the
// repository in this directory: each built and started, as sb says, in a
// worktree of its commit, in one interleaved run.
func CompareStacks(from, to string, sb StarterBuild) string {
	sb = sb.orDefault()
	return fmt.Sprintf(`stacks:                              # two revisions of this repository, one run
  - name: %s
    dir: .
    git: %s                     # built and started in a worktree of this commit
    build: %s     # %s
    start: %s                 # %s
  - name: %s
    dir: .
    git: %s
    build: %s
    start: %s
`, sanitize(from), yamlScalar(from), yamlScalar(sb.Build), yamlComment(sb.BuildNote), yamlScalar(sb.Start), yamlComment(sb.StartNote),
		sanitize(to), yamlScalar(to), yamlScalar(sb.Build), yamlScalar(sb.Start))
}

// yamlScalar is s as a YAML scalar on one line: plain when YAML reads it
// back as this very string, else double-quoted by the YAML encoder, which
// escapes line breaks and control characters. Paths and values come from
// documents init reads (an OpenAPI document, the repository): written
// raw, a line break and a "..." could end the file's document and put
// other stacks in its place.
func yamlScalar(s string) string {
	if !strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") && strings.TrimSpace(s) == s {
		if out, err := yaml.Marshal(s); err == nil && string(out) == s+"\n" {
			return s
		}
	}
	out, err := yaml.Marshal(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: s})
	if err != nil || strings.Count(string(out), "\n") != 1 {
		// Not expected of a string; JSON's quoting is YAML too.
		b, _ := json.Marshal(yamlComment(s))
		return string(b)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// yamlComment is s fit for a comment: one line, its control characters
// and line separators each turned into a space.
func yamlComment(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			return ' '
		}
		return r
	}, s)
}
