package plan

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
	"go.yaml.in/yaml/v3"
)

var (
	customKeys = []string{"name", "health", "database", "setup", "cases"}
	caseKeys   = []string{"name", "method", "path", "headers", "body", "expect", "inserts", "database", "compare", "ignore", "grpc"}
)

const caseExample = "- {name: hello, path: /hello}"

// workload reads a built-in workload's name or a custom workload. It returns
// the workload (nil on a problem), the health path stacks default to, and
// whether it is custom.
func (p *parser) workload(n *yaml.Node, jwtSecret string) (*workload.Workload, string, bool) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		name, ok := p.str(n, "workload", "workload: saas-slice")
		if !ok {
			return nil, DefaultHealth, false
		}
		w, ok := workload.Builtin(name, jwtSecret)
		if !ok {
			p.addf(n, "unknown workload %q; %s, or define your own (see docs/config.md)", name, didYouMean(name, workload.Names()))
			return nil, DefaultHealth, false
		}
		return w, builtinHealth(w), false
	}
	if isTFBMapping(n) {
		w := p.tfbWorkload(n)
		return w, builtinHealth(w), false
	}
	m, ok := p.fields(n, "workload", customKeys, "workload: saas-slice, or workload: {name: mine, cases: [...]}")
	if !ok {
		return nil, DefaultHealth, true
	}
	before := len(p.problems)
	w := &workload.Workload{}
	if v := m.get("name"); v != nil {
		if name, ok := p.ident(v, "workload", "my-workload"); ok {
			if slices.Contains(workload.Names(), name) {
				p.addf(v, "%q is a built-in workload; give your own workload another name, or write workload: %s to use the built-in one", name, name)
			}
			w.Name = name
		}
	} else {
		p.addf(n, "the custom workload has no name; add name: my-workload")
	}
	health := DefaultHealth
	if v := m.get("health"); v != nil {
		if h, ok := p.path(v, "health", "/health"); ok {
			health = h
		}
	}
	var steps []scenario.Step
	var stepTs []templated
	if v := m.get("setup"); v != nil {
		steps, stepTs = p.setup(v)
	}
	var caseTs []templated
	if v := m.get("cases"); v != nil {
		w.Cases, caseTs = p.cases(v)
		p.scenario = p.resolveScenario(steps, stepTs, caseTs, w.CaseNames())
		for i := range w.Cases {
			_, w.Cases[i].Templated = p.scenario.Lookup(w.Cases[i].Name)
			if p.scenario != nil {
				_, msg := p.scenario.Messages[w.Cases[i].Name]
				_, md := p.scenario.Metadata[w.Cases[i].Name]
				w.Cases[i].GRPCTemplated = msg || md
			}
		}
		p.resolveMixes(w.Cases, p.mixNodes)
	} else {
		p.addf(n, "the custom workload has no cases; add cases: a list such as\n      cases:\n        %s", caseExample)
	}
	for _, c := range w.Cases {
		w.NeedsDatabase = w.NeedsDatabase || c.Database
	}
	if v := m.get("database"); v != nil {
		fx, none := p.workloadDatabase(v)
		switch {
		case none:
			// The app brings its own storage: cases marked database: true
			// are only grouped apart in reports.
			w.NeedsDatabase = false
		case fx != nil:
			w.NeedsDatabase = true
			p.fixture = fx
		}
	}
	if len(p.problems) > before {
		return nil, health, true
	}
	return w, health, true
}

// cases reads a custom workload's cases.
func (p *parser) cases(n *yaml.Node) ([]workload.Case, []templated) {
	items, ok := p.items(n, "cases", "cases: ["+strings.TrimPrefix(caseExample, "- ")+"]")
	if !ok {
		return nil, nil
	}
	var out []workload.Case
	var ts []templated
	seen := map[string]int{}
	mixes := map[string]*yaml.Node{}
	for _, item := range items {
		if isFlowItem(item) {
			c, ok := p.flowCase(item)
			if !ok {
				continue
			}
			if line, dup := seen[c.Name]; dup {
				p.addf(item, "case name %q is already used at line %d; give the flow its own name", c.Name, line)
				continue
			}
			seen[c.Name] = item.Line
			out, ts = append(out, c), append(ts, templated{what: "flow " + c.Name})
			continue
		}
		if isMixItem(item) {
			c, ok := p.mixCase(item)
			if !ok {
				continue
			}
			if line, dup := seen[c.Name]; dup {
				p.addf(item, "case name %q is already used at line %d; give the mix its own name", c.Name, line)
				continue
			}
			seen[c.Name], mixes[c.Name] = item.Line, item
			out, ts = append(out, c), append(ts, templated{what: "mix " + c.Name})
			continue
		}
		c, t, ok := p.customCase(item)
		if !ok {
			// Its references are still checked, so that one pass shows all.
			p.brokenTemplates = append(p.brokenTemplates, t)
			continue
		}
		if line, dup := seen[c.Name]; dup {
			p.addf(item, "case name %q is already used at line %d; give each case its own name", c.Name, line)
			continue
		}
		seen[c.Name] = item.Line
		out, ts = append(out, c), append(ts, t)
	}
	p.mixNodes = mixes
	return out, ts
}

// customCase reads one case of a custom workload.
func (p *parser) customCase(n *yaml.Node) (workload.Case, templated, bool) {
	before := len(p.problems)
	c := workload.Case{Method: http.MethodGet, Expect: []int{http.StatusOK}}
	m, ok := p.fields(n, "a case", caseKeys, caseExample)
	if !ok {
		return c, templated{}, false
	}
	if v := m.get("name"); v != nil {
		c.Name, _ = p.ident(v, "case", "hello")
	} else {
		p.addf(n, "this case has no name; add name: a short name such as hello")
	}
	if v := m.get("path"); v != nil {
		c.Path, _ = p.path(v, "path", "/hello")
	} else if !m.has("grpc") {
		p.addf(n, "this case has no path; add path: the path and query to request, e.g. path: /users/42 (or grpc: for a gRPC stack)")
	}
	if v := m.get("grpc"); v != nil {
		c.GRPC = p.grpcRequest(v, c.Name)
	}
	if v := m.get("method"); v != nil {
		if method, ok := p.str(v, "method", "method: POST"); ok {
			c.Method = strings.ToUpper(method)
			if !slices.Contains(httpMethods, c.Method) {
				p.addf(v, "unknown method %q; write one of: %s", method, strings.Join(httpMethods, ", "))
			}
		}
	}
	if v := m.get("headers"); v != nil {
		c.Header = p.headers(v)
	}
	if v := m.get("body"); v != nil {
		c.Body = p.body(v)
	}
	if v := m.get("expect"); v != nil {
		c.Expect = p.statuses(v)
	}
	if v := m.get("inserts"); v != nil {
		c.Inserts, _ = p.boolean(v, "inserts")
	}
	if v := m.get("database"); v != nil {
		c.Database, _ = p.boolean(v, "database")
	}
	if c.Inserts && !c.Database {
		p.addf(m.keys["inserts"], "a case that inserts rows uses the database; add database: true to it")
	}
	p.compare(m, &c)
	if c.Path == "" {
		// A gRPC-only case: no HTTP request's templates to check.
		return c, templated{}, len(p.problems) == before
	}
	t := p.requestTemplates(m, c.Method, c.Path, c.Header, c.Body, "case "+c.Name)
	return c, t, len(p.problems) == before
}

// compare reads a case's compare mode and ignore paths. A custom case
// compares json unless it inserts (its bodies hold generated ids): then
// status.
func (p *parser) compare(m mapping, c *workload.Case) {
	c.Compare = workload.CompareJSON
	if c.Inserts {
		c.Compare = workload.CompareStatus
	}
	if v := m.get("compare"); v != nil {
		if mode, ok := p.str(v, "compare", "compare: json"); ok {
			if slices.Contains(workload.CompareModes, mode) {
				c.Compare = mode
			} else {
				p.addf(v, "unknown compare mode %q; %s", mode, didYouMean(mode, workload.CompareModes))
			}
		}
	}
	v := m.get("ignore")
	if v == nil {
		return
	}
	if c.Compare != workload.CompareJSON {
		p.addf(v, "ignore applies to compare: json, and this case compares %s; remove ignore or write compare: json", c.Compare)
		return
	}
	items, ok := p.items(v, "ignore", `ignore: [article.createdAt, "articles.#.updatedAt"]`)
	if !ok {
		return
	}
	for _, it := range items {
		if path, ok := p.str(it, "an ignore path", "article.createdAt"); ok {
			c.Ignore = append(c.Ignore, path)
		}
	}
}

var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// headers reads a mapping of header names to values, in order.
func (p *parser) headers(n *yaml.Node) []workload.Header {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.addf(n, "headers must be a mapping of names to values, not %s; write headers: {Content-Type: application/json}", describe(n))
		return nil
	}
	var out []workload.Header
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "" || strings.ContainsAny(k.Value, " :\r\n") {
			p.addf(k, "%s is not a header name; write e.g. Content-Type: application/json", describe(k))
			continue
		}
		if v.Kind != yaml.ScalarNode || strings.ContainsAny(v.Value, "\r\n") {
			p.addf(v, "header %s must be a single line of text, not %s; write %s: value", k.Value, describe(v), k.Value)
			continue
		}
		out = append(out, workload.Header{Name: k.Value, Value: v.Value})
	}
	return out
}

// statuses reads the expected statuses: one or a list of 100–599.
func (p *parser) statuses(n *yaml.Node) []int {
	items, ok := p.items(n, "expect", "expect: [200]")
	if !ok {
		return nil
	}
	var out []int
	for _, it := range items {
		code, ok := p.integer(it, "expect", "expect: [200]")
		if !ok {
			continue
		}
		if code < 100 || code > 599 {
			p.addf(it, "expect %d is not an HTTP status; write a status from 100 to 599, e.g. expect: [200]", code)
			continue
		}
		out = append(out, code)
	}
	return out
}

// unknownCase says that name is not a case of w, with the nearest case
// name or the list of them.
func unknownCase(name string, w *workload.Workload) string {
	return fmt.Sprintf("unknown case %q in workload %s; %s", name, w.Name, didYouMean(name, w.CaseNames()))
}
