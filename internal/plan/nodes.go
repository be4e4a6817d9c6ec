package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/scenario"
)

// parser walks the YAML tree of one file and collects problems instead of
// stopping at the first.
type parser struct {
	name     string // the file as shown in messages
	dir      string // the file's directory; relative stack dirs start here
	getenv   func(string) string
	problems []Problem
	// mixNodes are the custom workload's mix cases' items, by name.
	mixNodes map[string]*yaml.Node
	// scenario is the custom workload's setup and templates, once read.
	scenario *scenario.Scenario
	// brokenTemplates are the templates of steps and cases with other
	// problems, whose references are checked all the same.
	brokenTemplates []templated
	// fixture is the custom workload's own database, once read.
	fixture *DatabaseFixture
	// brokenHosts are the hosts: entries with problems (hosts.go).
	brokenHosts []string
	// rolesGiven: the roles: section names a role, valid or not.
	rolesGiven bool
	// grpcNodes are the cases' grpc: requests' nodes, by case (wire.go).
	grpcNodes map[string]grpcNodes
	// stepGRPC are the setup steps' grpc: calls' nodes, by step (wire.go).
	stepGRPC map[string]grpcNodes
	// stackNodes are nodes of stacks with paths:, by the stack's line
	// (stack_tfb.go).
	stackNodes map[int]stackNodes
}

// addf records a problem at node n.
func (p *parser) addf(n *yaml.Node, format string, a ...any) {
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	p.problems = append(p.problems, Problem{File: p.name, Line: line, Col: col, Msg: fmt.Sprintf(format, a...)})
}

// mapping is a YAML mapping whose keys were checked against a known list.
type mapping struct {
	node *yaml.Node
	vals map[string]*yaml.Node // key → value node
	keys map[string]*yaml.Node // key → key node
}

// get returns the value node of key, or nil when the key is absent or null.
func (m mapping) get(key string) *yaml.Node {
	v := m.vals[key]
	if v == nil || isNull(v) {
		return nil
	}
	return v
}

// has reports whether key is present with a non-null value.
func (m mapping) has(key string) bool { return m.get(key) != nil }

// deref follows YAML aliases (*name) to the node they stand for.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// fields checks that n is a mapping whose keys are all in known, reporting
// unknown keys (with the nearest known one) and keys given twice. what
// names the mapping in messages, e.g. "protocol" or `stack "gin"`.
func (p *parser) fields(n *yaml.Node, what string, known []string, example string) (mapping, bool) {
	n = deref(n)
	m := mapping{node: n, vals: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	if n.Kind != yaml.MappingNode {
		p.addf(n, "%s must be a mapping of keys to values, not %s; write it as %s", what, describe(n), example)
		return m, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		key := k.Value
		if k.Kind != yaml.ScalarNode {
			p.addf(k, "a key in %s must be a plain word, not %s; write key: value", what, describe(k))
			continue
		}
		if !slices.Contains(known, key) {
			p.addf(k, "unknown key %q in %s; %s", key, what, didYouMean(key, known))
			continue
		}
		if first, dup := m.keys[key]; dup {
			p.addf(k, "key %q appears twice in %s (first at line %d); keep one", key, what, first.Line)
			continue
		}
		m.keys[key], m.vals[key] = k, v
	}
	return m, true
}

// describe names the kind of a node for messages.
func describe(n *yaml.Node) string {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "empty"
		}
		return strconv.Quote(n.Value)
	}
	return "this"
}

// str reads a non-empty scalar as text. Numbers and booleans are taken as
// written (GOMAXPROCS: 2 means "2").
func (p *parser) str(n *yaml.Node, field, example string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.addf(n, "%s must be a single value, not %s; write %s", field, describe(n), example)
		return "", false
	}
	if strings.TrimSpace(n.Value) == "" {
		p.addf(n, "%s is empty; write %s", field, example)
		return "", false
	}
	return n.Value, true
}

// integer reads a whole number.
func (p *parser) integer(n *yaml.Node, field, example string) (int, bool) {
	n = deref(n)
	v, err := strconv.Atoi(strings.TrimSpace(n.Value))
	if n.Kind != yaml.ScalarNode || err != nil {
		p.addf(n, "%s must be a whole number, not %s; write %s", field, describe(n), example)
		return 0, false
	}
	return v, true
}

// atLeast reads a whole number no smaller than min.
func (p *parser) atLeast(n *yaml.Node, field string, min int, example string) (int, bool) {
	v, ok := p.integer(n, field, example)
	if ok && v < min {
		p.addf(n, "%s must be at least %d; write e.g. %s", field, min, example)
		return 0, false
	}
	return v, ok
}

// ident reads the name of a stack, case or workload: it appears in window
// keys, file names and report tables, so it is limited to namePattern.
func (p *parser) ident(n *yaml.Node, what, example string) (string, bool) {
	name, ok := p.str(n, what+" name", "name: "+example)
	if ok && !namePattern.MatchString(name) {
		p.addf(n, "%s name %q may only contain letters, digits, '.', '_' and '-'; write e.g. name: %s", what, name, sanitize(name))
		return "", false
	}
	return name, ok
}

// path reads a URL path, which must start with "/".
func (p *parser) path(n *yaml.Node, field, example string) (string, bool) {
	path, ok := p.str(n, field, field+": "+example)
	if ok && !strings.HasPrefix(path, "/") {
		p.addf(n, "%s %q must start with '/'; write e.g. %s: /%s", field, path, field, strings.TrimLeft(path, "/"))
		return "", false
	}
	return path, ok
}

// boolean reads true or false.
func (p *parser) boolean(n *yaml.Node, field string) (bool, bool) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		v, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err == nil {
			return v, true
		}
	}
	p.addf(n, "%s must be true or false, not %s; write %s: true or %s: false", field, describe(n), field, field)
	return false, false
}

// duration reads a Go duration with a unit ("5s", "1m30s") that is at least min.
func (p *parser) duration(n *yaml.Node, field string, min time.Duration) (time.Duration, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		p.addf(n, "%s must be a duration, not %s; write a number with a unit, e.g. %s: 5s", field, describe(n), field)
		return 0, false
	}
	d, err := parseDuration(n.Value, field, min)
	if err != nil {
		p.addf(n, "%v", err)
		return 0, false
	}
	return d, true
}

// parseDuration parses and bounds a duration, with a message that says what to write.
func parseDuration(s, field string, min time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a duration; write a number with a unit, e.g. %s: 5s (units: ms, s, m, h)", field, s, field)
	}
	if d < min {
		return 0, fmt.Errorf("%s %s is too short; write at least %s", field, s, min)
	}
	return d, nil
}

// items returns the elements of a list; a single scalar counts as a list of
// one, so "concurrency: 32" and "concurrency: [32]" mean the same.
func (p *parser) items(n *yaml.Node, field, example string) ([]*yaml.Node, bool) {
	n = deref(n)
	switch n.Kind {
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			p.addf(n, "%s is an empty list; write %s", field, example)
			return nil, false
		}
		out := make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			out[i] = deref(c)
		}
		return out, true
	case yaml.ScalarNode:
		if !isNull(n) {
			return []*yaml.Node{n}, true
		}
	}
	p.addf(n, "%s must be a list, not %s; write %s", field, describe(n), example)
	return nil, false
}
