package plan

import (
	"fmt"
	"strings"
)

// AppStarter is the custom-workload file `stackbench init` writes for the
// app in dir (named name): one GET case compared as JSON, no database, and
// a comment on each key a real app soon needs. stacks is the stacks
// section (StarterStacks or CompareStacks); cases the cases (nil: one GET
// of /).
func AppStarter(name string, stacks string, cases []StarterCase) string {
	if len(cases) == 0 {
		cases = []StarterCase{{Name: "home", Path: "/", Ignore: true}}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# stackbench.yaml: your own app, measured as you change it.
# Check it with 'stackbench plan', run it with 'stackbench run'.
# The format is in docs/config.md; a worked example is examples/blog.
workload:
  name: %s
  health: /                 # polled until it answers 200; e.g. /health
  database: none            # the app brings its own storage; or give it yours:
  # database:
  #   schema: [migrations/*.up.sql]   # SQL files, in order, into a template database
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
`, name)
	for _, c := range cases {
		if c.Comment != "" {
			fmt.Fprintf(&b, "    # %s\n", c.Comment)
		}
		fmt.Fprintf(&b, "    - name: %s\n      path: %s\n      compare: json       # exact | json | status | none\n", c.Name, yamlScalar(c.Path))
		if c.Ignore {
			b.WriteString("      # ignore: [createdAt, \"items.#.updatedAt\"]   # paths left out of the comparison\n")
		}
	}
	b.WriteString(`profile: quick
`)
	b.WriteString(stacks)
	return b.String()
}

// StarterCase is one case of a starter file.
type StarterCase struct {
	Name, Path string
	// Comment is written above the case (where a placeholder needs a
	// value, say).
	Comment string
	Ignore  bool
}

// StarterStacks is a starter's stacks section: the app in this directory.
const StarterStacks = `stacks:
  - name: app
    dir: .
    build: go build -o bin/app .     # your build command, or remove the line
    start: ./bin/app                 # must listen on 127.0.0.1:$PORT
`

// CompareStacks is a starter's stacks section for two revisions of the
// repository in this directory: each built and started in a worktree of
// its commit, in one interleaved run.
func CompareStacks(from, to string) string {
	return fmt.Sprintf(`stacks:                              # two revisions of this repository, one run
  - name: %s
    dir: .
    git: %s                     # built and started in a worktree of this commit
    build: go build -o bin/app .     # your build command, or remove the line
    start: ./bin/app                 # must listen on 127.0.0.1:$PORT
  - name: %s
    dir: .
    git: %s
    build: go build -o bin/app .
    start: ./bin/app
`, sanitize(from), yamlScalar(from), sanitize(to), yamlScalar(to))
}

// yamlScalar quotes s when YAML would read it as something else.
func yamlScalar(s string) string {
	if strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || strings.TrimSpace(s) != s {
		return fmt.Sprintf("%q", s)
	}
	return s
}
