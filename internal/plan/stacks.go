package plan

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

var stackKeys = []string{"name", "from", "dir", "build", "start", "env", "health", "boot_timeout", "version", "runtime", "dx", "pprof", "services", "git", "container", "protocol", "tls", "streams", "proto", "base", "database", "tfb", "paths"}

// namePattern is what stack and case names may contain: they appear in
// window keys ("r2/gin/order/c100"), file names and report tables.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// harnessEnv are the variables the harness sets; a stack may not override them.
var harnessEnv = []string{"PORT", "DATABASE_URL", "JWT_SECRET", "STACKBENCH_WORKLOAD", ProtocolEnv}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

const stackExample = "- name: my-api\n        dir: .\n        start: ./bin/server"

// stacks reads the stacks list; health is the default health path.
func (p *parser) stacks(n *yaml.Node, health string) []Stack {
	n = deref(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.addf(n, "stacks must be a list with at least one stack, not %s; write\n    stacks:\n      %s", describe(n), stackExample)
		return nil
	}
	var out []Stack
	seen := map[string]int{} // name → line
	for _, item := range n.Content {
		s, ok := p.stack(deref(item), health)
		if line, dup := seen[s.Name]; dup && s.Name != "" {
			p.addf(item, "stack name %q is already used at line %d; give each stack its own name", s.Name, line)
			continue
		}
		seen[s.Name] = s.Line
		if s.From != "" {
			_, earlier := seen[s.From]
			switch {
			case s.From == s.Name:
				p.addf(fromNode(item), "stack %q has from: %s, itself; name the earlier stack it changes one layer of", s.Name, s.From)
				ok = false
			case !earlier:
				p.addf(fromNode(item), "stack %q has from: %s, which is not a stack listed before it; name an earlier stack (steps run from the first stack outwards)", s.Name, s.From)
				ok = false
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// fromNode is the from: value of a stack's mapping, for a message's line;
// the stack's own node when it has none.
func fromNode(n *yaml.Node) *yaml.Node {
	n = deref(n)
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "from" {
				return n.Content[i+1]
			}
		}
	}
	return n
}

// stack reads one stack; ok is false when it has a problem.
func (p *parser) stack(n *yaml.Node, health string) (Stack, bool) {
	before := len(p.problems)
	s := Stack{Line: n.Line, Health: health}
	what := "this stack"
	if name := peekKey(n, "name"); name != "" {
		what = "stack " + quote(name)
	}
	m, ok := p.fields(n, what, stackKeys, stackExample)
	if !ok {
		return s, false
	}
	if v := m.get("name"); v != nil {
		s.Name, _ = p.ident(v, "stack", "my-api")
	} else {
		p.addf(n, "%s has no name; add name: followed by a short unique name, e.g. name: gin-pgx", what)
	}
	if v := m.get("dir"); v != nil {
		if dir, ok := p.str(v, "dir", "dir: apps/my-api"); ok {
			s.Dir = p.stackDir(v, dir)
		}
	} else {
		p.addf(n, "%s has no dir; add dir: the directory to build and start it in, relative to %s (e.g. dir: .)", what, filepath.Base(p.name))
	}
	if v := m.get("container"); v != nil {
		s.Container = p.container(v, &s)
	}
	if v := m.get("start"); v != nil {
		s.Start, _ = p.str(v, "start", "start: ./bin/server")
	} else if !m.has("container") {
		p.addf(n, "%s has no start; add start: the command that runs the server in dir, e.g. start: ./bin/server", what)
	}
	if v := m.get("build"); v != nil {
		s.Build, _ = p.str(v, "build", "build: go build -o bin/server .")
	}
	if v := m.get("from"); v != nil {
		s.From, _ = p.str(v, "from", "from: nethttp-pgx (the stack this one changes one layer of)")
	}
	if v := m.get("version"); v != nil {
		s.Version, _ = p.str(v, "version", "version: go version")
	}
	if v := m.get("health"); v != nil && peekKey(n, "protocol") != WireGRPC {
		if h, ok := p.path(v, "health", "/health"); ok {
			s.Health = h
		}
	}
	if v := m.get("runtime"); v != nil {
		if rt, ok := p.str(v, "runtime", "runtime: node"); ok {
			if slices.Contains(Runtimes, rt) {
				s.Runtime = rt
			} else {
				p.addf(v, "runtime %q is not known; write one of %s (node, bun, deno, python, jvm and dotnet get the longer warm-up of a JIT), or leave it out", rt, strings.Join(Runtimes, ", "))
			}
		}
	}
	if v := m.get("boot_timeout"); v != nil {
		s.BootTimeout, _ = p.duration(v, "boot_timeout", time.Second)
	}
	if v := m.get("env"); v != nil {
		s.Env, s.EnvOrder = p.env(v)
	}
	p.wire(m, &s, what)
	if v := m.get("base"); v != nil {
		s.Base = p.base(v, &s)
	}
	// The health path is asked under the base path, as every other path.
	s.Health = s.Base + s.Health
	if s.Wire.TLS {
		for _, k := range []string{TLSCertEnv, TLSKeyEnv} {
			if _, set := s.Env[k]; set {
				p.addf(m.get("env"), "%s is set by the harness for a stack with tls: on (the run's throwaway certificate); remove it from env", k)
			}
		}
	}
	if v := m.get("git"); v != nil && s.Dir != "" {
		if rev, ok := p.str(v, "git", "git: main"); ok {
			s.Git = p.gitRevision(v, s.Dir, rev)
		}
	}
	if v := m.get("services"); v != nil {
		s.Services = p.ports(v)
	}
	if v := m.get("pprof"); v != nil {
		s.Pprof, _ = p.path(v, "pprof", "debug/pprof")
	}
	if v := m.get("database"); v != nil && s.Dir != "" {
		s.Database = p.stackDatabase(v, s.Dir, what)
	}
	if v := m.get("dx"); v != nil && s.Dir != "" {
		s.DX = p.dx(v, s.Dir, what)
	}
	if v := m.get("tfb"); v != nil {
		s.TFB = p.tfbEntry(v)
	}
	if v := m.get("paths"); v != nil {
		s.Paths = p.stackPaths(v)
		if p.stackNodes == nil {
			p.stackNodes = map[int]stackNodes{}
		}
		p.stackNodes[s.Line] = stackNodes{paths: v, healthGiven: m.has("health")}
	}
	return s, len(p.problems) == before
}

// stackDir resolves dir against the file's directory and checks it exists.
func (p *parser) stackDir(n *yaml.Node, dir string) string {
	abs := p.expandHome(dir)
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		p.addf(n, "dir %q does not exist (looked for %s); write a directory relative to %s, or an absolute one", dir, abs, filepath.Base(p.name))
	case !st.IsDir():
		p.addf(n, "dir %q is a file, not a directory; write the directory that holds the stack's code", dir)
	}
	return abs
}

// env reads a stack's extra environment variables, in order.
func (p *parser) env(n *yaml.Node) (map[string]string, []string) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.addf(n, "env must be a mapping of names to values, not %s; write env: {GOMAXPROCS: \"2\"}", describe(n))
		return nil, nil
	}
	env := map[string]string{}
	var order []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		switch {
		case k.Kind != yaml.ScalarNode || !envName.MatchString(k.Value):
			p.addf(k, "%s is not a valid environment variable name; use letters, digits and '_', e.g. GOMAXPROCS", describe(k))
		case slices.Contains(harnessEnv, k.Value):
			p.addf(k, "%s is set by the harness for every stack; remove it from env", k.Value)
		case slices.Contains(order, k.Value):
			p.addf(k, "%s appears twice in env; keep one", k.Value)
		default:
			if v.Kind != yaml.ScalarNode {
				p.addf(v, "env %s must be a single value, not %s; write %s: \"value\"", k.Value, describe(v), k.Value)
				continue
			}
			env[k.Value] = v.Value // null (KEY:) is the empty string
			order = append(order, k.Value)
		}
	}
	return env, order
}

// ports reads a list of TCP ports (a stack's services).
func (p *parser) ports(n *yaml.Node) []int {
	items, ok := p.items(n, "services", "services: [6379, 5433]")
	if !ok {
		return nil
	}
	var out []int
	for _, it := range items {
		port, ok := p.integer(it, "a service port", "services: [6379]")
		if !ok {
			continue
		}
		if port < 1 || port > 65535 {
			p.addf(it, "service port %d is not a TCP port; write a port from 1 to 65535, e.g. services: [6379]", port)
			continue
		}
		out = append(out, port)
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

// sanitize suggests a valid name for an invalid one.
func sanitize(name string) string {
	out := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(name, "-")
	out = strings.Trim(out, "-._")
	if out == "" {
		return "my-api"
	}
	return out
}

// peekKey returns the scalar value of key in mapping n, or "".
func peekKey(n *yaml.Node, key string) string {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := deref(n.Content[i]), deref(n.Content[i+1]); k.Value == key && v.Kind == yaml.ScalarNode {
			return v.Value
		}
	}
	return ""
}

// Runtimes are the values of a stack's runtime: key. The ones JITRuntime
// names compile (or specialise) code while they serve, so their first
// seconds are slower than the rest.
var Runtimes = []string{"go", "native", "node", "bun", "deno", "python", "jvm", "dotnet"}

// JITRuntime reports whether a runtime warms up while it serves: V8
// (node, deno), JavaScriptCore (bun), CPython's specialising interpreter,
// the JVM's and .NET's tiered compilers.
func JITRuntime(runtime string) bool {
	switch runtime {
	case "node", "bun", "deno", "python", "jvm", "dotnet":
		return true
	}
	return false
}
