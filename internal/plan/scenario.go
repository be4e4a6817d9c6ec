package plan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"

	"github.com/stackbench/stackbench/internal/platform/local"
)

var stepKeys = []string{"name", "scope", "method", "path", "headers", "body", "grpc", "expect", "capture", "repeat"}

const stepExample = "- {name: login, method: POST, path: /login, body: '{\"user\":\"bench\"}', capture: {token: body.token}}"

// templated is a request's templates with the YAML nodes they came from,
// to place a problem at its line and column.
type templated struct {
	req   scenario.Request
	nodes []*yaml.Node // per field of req.Templates()
	// repeat is true for a repeated setup step (${i} is defined).
	repeat bool
	what   string // "setup step login", "case article"
	// grpc is a setup step's gRPC message, nil when it has none.
	grpc *templated
	// grpcCall is true when req is a gRPC call's message (its body) and
	// metadata (its headers): problems name them so.
	grpcCall bool
}

// requestTemplates parses the templates of a request read from mapping m,
// adding a problem for each field that does not parse (that field is then
// taken as written, so the others' references are still checked).
func (p *parser) requestTemplates(m mapping, method, path string, header []workload.Header, body []byte, what string) templated {
	t := templated{what: what, req: scenario.Request{Method: method}}
	parse := func(field, s string) scenario.Template {
		tp, err := scenario.Parse(s)
		if err != nil {
			p.addAt(p.fieldNode(m, field), err.(*scenario.Error).Offset, "%s: %s: %v", what, field, err)
			return scenario.Template{Source: s, Parts: []scenario.Part{{Kind: scenario.Literal, Text: s}}}
		}
		return tp
	}
	t.req.Path = parse("path", path)
	for _, h := range header {
		t.req.Header = append(t.req.Header, scenario.HeaderTemplate{Name: h.Name, Value: parse("headers."+h.Name, h.Value)})
	}
	t.req.Body = parse("body", string(body))
	fields, _ := t.req.Templates()
	for _, f := range fields {
		t.nodes = append(t.nodes, p.fieldNode(m, f))
	}
	return t
}

// fieldNode finds the node of a request field ("path", "body",
// "headers.Name") in m.
func (p *parser) fieldNode(m mapping, field string) *yaml.Node {
	if name, ok := strings.CutPrefix(field, "headers."); ok {
		h := deref(m.get("headers"))
		for i := 0; h != nil && i+1 < len(h.Content); i += 2 {
			if deref(h.Content[i]).Value == name {
				return deref(h.Content[i+1])
			}
		}
		return h
	}
	if n := m.get(field); n != nil {
		return deref(n)
	}
	return m.node
}

// addAt records a problem at byte offset of scalar n's value: its column
// on a one-line scalar (after the opening quote of a quoted one), its line
// in a block scalar.
func (p *parser) addAt(n *yaml.Node, offset int, format string, a ...any) {
	if n == nil || n.Kind != yaml.ScalarNode {
		p.addf(n, format, a...)
		return
	}
	at := *n
	before := n.Value[:min(offset, len(n.Value))]
	if nl := strings.Count(before, "\n"); nl > 0 || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		at.Line, at.Column = n.Line+1+nl, 0
	} else {
		at.Column += offset
		if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			at.Column++
		}
	}
	p.addf(&at, format, a...)
}

// setup reads the workload's setup steps and their templates.
func (p *parser) setup(n *yaml.Node) ([]scenario.Step, []templated) {
	items, ok := p.items(n, "setup", "setup:\n        "+stepExample)
	if !ok {
		return nil, nil
	}
	var steps []scenario.Step
	var ts []templated
	seen := map[string]int{}
	for _, item := range items {
		s, t, ok := p.step(item)
		if !ok {
			p.brokenTemplates = append(p.brokenTemplates, t)
			continue
		}
		if line, dup := seen[s.Name]; dup {
			p.addf(item, "setup step name %q is already used at line %d; give each step its own name", s.Name, line)
			continue
		}
		seen[s.Name] = item.Line
		steps, ts = append(steps, s), append(ts, t)
	}
	return steps, ts
}

// step reads one setup step.
func (p *parser) step(n *yaml.Node) (scenario.Step, templated, bool) {
	before := len(p.problems)
	s := scenario.Step{Scope: scenario.ScopeStack}
	m, ok := p.fields(n, "a setup step", stepKeys, stepExample)
	if !ok {
		return s, templated{}, false
	}
	if v := m.get("name"); v != nil {
		s.Name, _ = p.ident(v, "setup step", "login")
	} else {
		p.addf(n, "this setup step has no name; add name: a short name such as login")
	}
	if v := m.get("scope"); v != nil {
		if scope, ok := p.str(v, "scope", "scope: stack"); ok {
			s.Scope = scenario.Scope(scope)
			if s.Scope != scenario.ScopeStack && s.Scope != scenario.ScopeProcess {
				p.addf(v, "unknown scope %q; write scope: stack (once per stack, on its first process) or scope: process (on every fresh process)", scope)
			}
		}
	}
	method, path := http.MethodGet, ""
	if v := m.get("method"); v != nil {
		if mt, ok := p.str(v, "method", "method: POST"); ok {
			method = strings.ToUpper(mt)
			if !slices.Contains(httpMethods, method) {
				p.addf(v, "unknown method %q; write one of: %s", mt, strings.Join(httpMethods, ", "))
			}
		}
	}
	if v := m.get("path"); v != nil {
		path, _ = p.path(v, "path", "/login")
	} else if !m.has("grpc") {
		p.addf(n, "this setup step has no path; add path: the path and query to request, e.g. path: /login (or grpc: for a gRPC stack)")
	}
	var header []workload.Header
	if v := m.get("headers"); v != nil {
		header = p.headers(v)
	}
	var body []byte
	if v := m.get("body"); v != nil {
		body = p.body(v)
	}
	if v := m.get("expect"); v != nil {
		s.Expect = p.statuses(v)
	}
	if v := m.get("repeat"); v != nil {
		if r, ok := p.atLeast(v, "repeat", 1, "repeat: 100"); ok {
			if r > scenario.MaxVariants {
				p.addf(v, "repeat %d is more than %d; a list longer than that cannot be sent as variants", r, scenario.MaxVariants)
			}
			s.Repeat = r
		}
	}
	if v := m.get("capture"); v != nil {
		s.Capture = p.captures(v)
	}
	t := p.requestTemplates(m, method, path, header, body, "setup step "+s.Name)
	t.repeat = s.Repeat > 0
	s.Request = t.req
	if v := m.get("grpc"); v != nil {
		s.GRPC, t.grpc = p.grpcStep(v, s.Name, t.repeat)
		if v := m.get("expect"); v != nil && path == "" {
			p.addf(v, "setup step %s has expect: and only a gRPC call, which succeeds on grpc-status 0 alone; remove expect: (or add the step's HTTP request, path:, which it is for)", s.Name)
		}
	}
	return s, t, len(p.problems) == before
}

// grpcStep reads a setup step's grpc: call and parses its message's
// template.
func (p *parser) grpcStep(n *yaml.Node, name string, repeat bool) (*scenario.GRPCStep, *templated) {
	what := "setup step " + name
	call, mv, msg := p.grpcCase(n, what)
	if call == nil {
		return nil, nil
	}
	md, mdNodes := p.metadataTemplates(n, call.Metadata, what)
	if p.stepGRPC == nil {
		p.stepGRPC = map[string]grpcNodes{}
	}
	p.stepGRPC[name] = grpcNodes{method: mv, message: msg, metadata: md, metadataNodes: mdNodes}
	tp, err := scenario.Parse(call.Message)
	if err != nil {
		p.addAt(deref(msg), err.(*scenario.Error).Offset, "%s: grpc message: %v", what, err)
		tp = scenario.Template{Source: call.Message, Parts: []scenario.Part{{Kind: scenario.Literal, Text: call.Message}}}
	}
	if msg == nil {
		msg = mv
	}
	nodes := append(append([]*yaml.Node{deref(msg)}, mdNodes...), deref(msg))
	return &scenario.GRPCStep{Method: call.Method, Message: tp, Metadata: md}, &templated{req: scenario.Request{Header: md, Body: tp}, nodes: nodes, repeat: repeat, what: what + ": grpc", grpcCall: true}
}

// captures reads a mapping of names to capture paths.
func (p *parser) captures(n *yaml.Node) []scenario.CaptureSpec {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.addf(n, "capture must be a mapping of names to paths, not %s; write capture: {token: body.user.token}", describe(n))
		return nil
	}
	var out []scenario.CaptureSpec
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		name, ok := p.str(k, "a capture name", "token: body.user.token")
		if !ok {
			continue
		}
		if name == "i" || !captureName.MatchString(name) {
			p.addf(k, "capture name %q must be letters, digits and _ (and not i); write e.g. token: body.user.token", name)
			continue
		}
		path, ok := p.str(v, "capture "+name, name+": body.user.token")
		if !ok {
			continue
		}
		if _, _, err := scenario.CaptureSource(path); err != nil {
			p.addf(v, "%v", err)
			continue
		}
		out = append(out, scenario.CaptureSpec{Name: name, Path: path})
	}
	return out
}

// body reads a request body: text, as written.
func (p *parser) body(v *yaml.Node) []byte {
	v = deref(v)
	if v.Kind != yaml.ScalarNode {
		p.addf(v, "body must be text, not %s; write the exact body as a string, e.g. body: '{\"name\":\"Ada\"}'", describe(v))
		return nil
	}
	return []byte(v.Value)
}

// resolveScenario checks every reference of the setup steps and templated
// cases — a name captured by a step that runs before, ${i} only in a
// repeated step, a set environment variable, a readable file of lines —
// and returns the scenario, or nil when nothing is templated and there is
// no setup.
func (p *parser) resolveScenario(steps []scenario.Step, stepTs []templated, cases []templated, caseNames []string) *scenario.Scenario {
	sc := &scenario.Scenario{Steps: steps, Cases: map[string]scenario.Request{}, Env: map[string]string{}, Lines: map[string][]string{}}
	defined := map[string]bool{}
	// Stack-scoped steps run first (on a stack's first process), then the
	// process-scoped ones: a name is defined for what runs after its step.
	for _, scope := range []scenario.Scope{scenario.ScopeStack, scenario.ScopeProcess} {
		for i, s := range steps {
			if s.Scope != scope {
				continue
			}
			p.checkRefs(sc, stepTs[i], defined)
			if g := stepTs[i].grpc; g != nil {
				p.checkRefs(sc, *g, defined)
			}
			for _, c := range s.Capture {
				defined[c.Name] = true
			}
		}
	}
	for i, t := range cases {
		p.checkRefs(sc, t, defined)
		if !t.req.Fixed() {
			sc.Cases[caseNames[i]] = t.req
		}
		if g, ok := p.grpcNodes[caseNames[i]]; ok {
			p.checkRefs(sc, g.templated(caseNames[i]), defined)
			if !g.template.Fixed() {
				if sc.Messages == nil {
					sc.Messages = map[string]scenario.Template{}
				}
				sc.Messages[caseNames[i]] = g.template
			}
			if !g.metadataFixed() {
				if sc.Metadata == nil {
					sc.Metadata = map[string][]scenario.HeaderTemplate{}
				}
				sc.Metadata[caseNames[i]] = g.metadata
			}
		}
	}
	for _, t := range p.brokenTemplates {
		p.checkRefs(sc, t, defined)
		if t.grpc != nil {
			p.checkRefs(sc, *t.grpc, defined)
		}
	}
	if len(steps) == 0 && len(sc.Cases) == 0 && len(sc.Messages) == 0 && len(sc.Metadata) == 0 {
		return nil
	}
	return sc
}

// checkRefs adds a problem for each reference of t that cannot resolve.
func (p *parser) checkRefs(sc *scenario.Scenario, t templated, defined map[string]bool) {
	fields, ts := t.req.Templates()
	what := t.what
	for f, tp := range ts {
		if t.grpcCall {
			name, md := strings.CutPrefix(fields[f], "headers.")
			t.what = what + " message"
			if md {
				t.what = what + " metadata " + name
			}
		}
		for _, ref := range tp.Refs() {
			n := t.nodes[f]
			switch ref.Kind {
			case scenario.Capture:
				if !defined[ref.Text] {
					p.addAt(n, ref.Offset, "%s: ${%s} is not captured by a setup step that runs before it; add capture: {%s: body.<path>} to an earlier step (stack-scoped steps run before process-scoped ones)", t.what, ref.Text, ref.Text)
				}
			case scenario.Index:
				if !t.repeat {
					p.addAt(n, ref.Offset, "%s: ${i} is only defined in a setup step with repeat: N; add repeat: or use ${rand:A..B} or a captured list", t.what)
				}
			case scenario.Env:
				v := p.getenv(ref.Text)
				if v == "" {
					p.addAt(n, ref.Offset, "%s: ${env:%s} is not set in the environment; export %s", t.what, ref.Text, ref.Text)
				}
				sc.Env[ref.Text] = v
			case scenario.Line:
				if _, done := sc.Lines[ref.Text]; done {
					continue
				}
				lines, err := readLines(p.expandHome(ref.Text))
				if err != nil {
					p.addAt(n, ref.Offset, "%s: ${line:%s}: %v", t.what, ref.Text, err)
					continue
				}
				sc.Lines[ref.Text] = lines
			}
		}
	}
}

// maxLineFileBytes bounds what ${line:FILE} reads.
const maxLineFileBytes = 64 << 20

// readLines reads the non-empty lines of a regular file, streaming it and
// stopping at maxLineFileBytes (a FIFO such as /dev/stdin would block
// plan, /dev/zero exhaust its memory). It opens without blocking, since
// the open of a FIFO waits for a writer, and only then checks the kind.
func readLines(path string) ([]string, error) {
	f, err := os.OpenFile(path, local.ReadNoWait, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v); name a file of lines", path, st.Mode().Type())
	}
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, maxLineFileBytes+1))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	read := 0
	for sc.Scan() {
		read += len(sc.Bytes()) + 1
		if read > maxLineFileBytes {
			return nil, fmt.Errorf("%s is larger than %d MiB; a list of request values is smaller", path, maxLineFileBytes>>20)
		}
		if l := strings.TrimRight(sc.Text(), "\r"); l != "" {
			out = append(out, l)
		}
		if len(out) > scenario.MaxVariants {
			return nil, errTooManyLines(len(out))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w (lines are at most 1 MiB)", path, err)
	}
	if len(out) == 0 {
		return nil, errEmptyFile
	}
	if len(out) > scenario.MaxVariants {
		return nil, errTooManyLines(len(out))
	}
	return out, nil
}

// captureName is the form of a captured name, as ${name} reads it.
var captureName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var errEmptyFile = errors.New("the file has no line; write one value per line")

func errTooManyLines(n int) error {
	return fmt.Errorf("%d lines; at most %d variants are encoded before a window, so keep that many lines or fewer", n, scenario.MaxVariants)
}
