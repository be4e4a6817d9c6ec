package plan

import (
	"bytes"
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
	// Stacks are the stacks (AppStacks or CompareStacks).
	Stacks []StarterStack
	// OwnDatabase is true when the stacks bring their own database (a
	// migrate: command found): the workload then says so instead of
	// database: none.
	OwnDatabase bool
	// Cases are the cases (nil: one GET of /).
	Cases []StarterCase
	// CasesNode, when set, replaces Cases: the cases list as a YAML
	// sequence node (init --access-log's).
	CasesNode *yaml.Node
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

// starterExamples is the commented-out help above cases: the keys a
// real app soon needs, with values to copy.
const starterExamples = `database:               # the run's PostgreSQL with your schema, instead of none:
  schema: [migrations/*.up.sql]   # SQL files, in order, into a template database
  setup: ./bin/migrate up         # or a command, with DATABASE_URL set
  seed: seed/seed.sql             # SQL file or command, once
  reset: "TRUNCATE comments"      # before each window of a case with inserts: true
setup:                  # requests to each stack before parity and the windows
  - name: login
    scope: stack        # stack: once per stack; process: each fresh process
    method: POST
    path: /api/users/login
    headers: {Content-Type: application/json}
    body: '{"user":{"email":"bench@example.com","password":"benchbench"}}'
    capture: {token: body.user.token}   # gjson paths: body.<path>, header.<Name>
  - name: items
    repeat: 100         # ${i} = 1..100; a capture becomes a list
    method: POST
    path: /api/items
    headers: {Authorization: "Token ${token}"}
    body: '{"name":"item ${i}"}'
    capture: {ids: body.item.id}`

// AppStarter is the custom-workload file `stackbench init` writes for an
// app: one GET case compared as JSON unless Cases say otherwise, what the
// repository showed (its health route, its migrations) with a comment on
// where it came from, and a comment on each key a real app soon needs.
// Every value goes through yaml.v3's encoder, so any string (a path with a
// colon, a command with quotes, a value with #) reads back as itself.
func AppStarter(app StarterApp) (string, error) {
	wl := mapNode()
	addScalar(wl, "name", app.Name, "")
	if app.Health != "" {
		addScalar(wl, "health", app.Health, "polled until it answers 200; "+app.HealthNote)
	} else {
		addScalar(wl, "health", "/", "polled until it answers 200; e.g. /health (a guess: none found)")
	}
	switch {
	case len(app.Schema) > 0:
		db := mapNode()
		addNode(db, "schema", strSeq(app.Schema), "SQL files, in order, into a template database")
		addNode(wl, "database", db, "the run's PostgreSQL, with your schema ("+app.SchemaNote+")")
	case app.OwnDatabase:
		// Each stack's database: key says how it is built.
	default:
		addScalar(wl, "database", "none", "the app brings its own storage; or give it yours (below)")
	}
	cases := app.CasesNode
	if cases == nil {
		cases = casesNode(app.Cases)
	}
	key := addNode(wl, "cases", cases, "${ids} cycles over a list, ${rand:1..100} draws, ${env:NAME}, ${line:FILE}")
	key.HeadComment = starterExamples
	if app.OwnDatabase && len(app.Schema) == 0 {
		key.HeadComment = "database: the stack's own, built by its migrate: command (stacks: below)\n" + starterExamples
	}
	doc := mapNode()
	addNode(doc, "workload", wl, "")
	addScalar(doc, "profile", "quick", "")
	stacks := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range app.Stacks {
		stacks.Content = append(stacks.Content, s.node())
	}
	comment := ""
	if len(app.Stacks) == 2 && app.Stacks[0].Git != "" {
		comment = "two revisions of this repository, one run"
	}
	addNode(doc, "stacks", stacks, comment)
	return encodeStarter(doc, "stackbench.yaml: your own app, measured as you change it.\n"+
		"Check it with 'stackbench plan', run it with 'stackbench run'.\n"+
		"The format is in docs/config.md; a worked example is examples/blog.")
}

// casesNode is the cases list of a starter: one GET of / when there are
// none.
func casesNode(cases []StarterCase) *yaml.Node {
	if len(cases) == 0 {
		cases = []StarterCase{{Name: "home", Path: "/", Ignore: true}}
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range cases {
		n := mapNode()
		n.HeadComment = yamlComment(c.Comment)
		addScalar(n, "name", c.Name, "")
		addScalar(n, "path", c.Path, "")
		note := "exact | json | status | none"
		if c.Ignore {
			note += "; ignore: [createdAt, \"items.#.updatedAt\"] leaves paths out"
		}
		addScalar(n, "compare", "json", note)
		if len(c.Header) > 0 {
			h := mapNode()
			for _, kv := range c.Header {
				addScalar(h, kv[0], kv[1], "")
			}
			addNode(n, "headers", h, "")
		}
		seq.Content = append(seq.Content, n)
	}
	return seq
}

// encodeStarter writes doc, with head above it, through the encoder.
func encodeStarter(doc *yaml.Node, head string) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, HeadComment: head, Content: []*yaml.Node{doc}}); err != nil {
		return "", fmt.Errorf("encode the starter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encode the starter: %w", err)
	}
	return buf.String(), nil
}

func mapNode() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

// strNode is s as a string scalar: the encoder quotes it when YAML would
// read it as anything else.
func strNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// strSeq is a flow sequence of strings.
func strSeq(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range items {
		n.Content = append(n.Content, strNode(s))
	}
	return n
}

// addNode appends key: v to mapping m, with comment after the value (or
// after the key, for a mapping or a block sequence), and returns the key.
func addNode(m *yaml.Node, key string, v *yaml.Node, comment string) *yaml.Node {
	k := strNode(key)
	if comment = yamlComment(comment); comment != "" {
		if v.Kind == yaml.ScalarNode || v.Style&yaml.FlowStyle != 0 {
			v.LineComment = comment
		} else {
			k.LineComment = comment
		}
	}
	m.Content = append(m.Content, k, v)
	return k
}

// addScalar appends key: value to mapping m.
func addScalar(m *yaml.Node, key, value, comment string) {
	addNode(m, key, strNode(value), comment)
}

// yamlComment is s fit for a comment: one line, its control characters
// and line separators each turned into a space.
func yamlComment(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\ufeff' || r == '\u0085' {
			return ' '
		}
		return r
	}, s))
}
