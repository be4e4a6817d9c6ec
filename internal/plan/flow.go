package plan

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/workload"
)

var (
	flowKeys     = []string{"name", "steps", "inserts", "database"}
	flowStepKeys = []string{"name", "method", "path", "headers", "body", "expect", "capture", "think", "compare", "ignore"}
)

const flowExample = "- flow: {name: session, steps: [{name: login, method: POST, path: /login, capture: {token: body.token}}, {name: me, path: /me, headers: {Authorization: \"Bearer ${token}\"}}]}"

// isFlowItem reports whether a cases item is a flow ({flow: {...}}).
func isFlowItem(n *yaml.Node) bool {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == "flow" {
			return true
		}
	}
	return false
}

// flowCase reads a flow: a case whose load is virtual users, each running
// the steps in turn with what earlier steps captured (load.Flow). A step
// refers to ${name} captured by an earlier step and to ${rand:A..B}.
func (p *parser) flowCase(n *yaml.Node) (workload.Case, bool) {
	before := len(p.problems)
	var c workload.Case
	outer, ok := p.fields(n, "a flow case", []string{"flow"}, flowExample)
	if !ok {
		return c, false
	}
	m, ok := p.fields(outer.get("flow"), "flow", flowKeys, flowExample)
	if !ok {
		return c, false
	}
	if v := m.get("name"); v != nil {
		c.Name, _ = p.ident(v, "flow", "session")
	} else {
		p.addf(m.node, "this flow has no name; add name: a short name such as session")
	}
	flow := &load.Flow{Name: c.Name}
	if v := m.get("steps"); v != nil {
		items, ok := p.items(v, "steps", "steps: [{name: login, path: /login}]")
		if ok && len(items) > load.MaxFlowSteps {
			p.addf(v, "flow %s has %d steps; at most %d", c.Name, len(items), load.MaxFlowSteps)
		}
		for _, it := range items {
			st, sp, ok := p.flowStep(it)
			if ok {
				flow.Steps = append(flow.Steps, st)
				c.FlowParity = append(c.FlowParity, sp)
			}
		}
	} else {
		p.addf(m.node, "flow %s has no steps; add steps: a list of requests, e.g. %s", c.Name, flowExample)
	}
	if v := m.get("inserts"); v != nil {
		c.Inserts, _ = p.boolean(v, "inserts")
	}
	if v := m.get("database"); v != nil {
		c.Database, _ = p.boolean(v, "database")
	}
	if c.Inserts && !c.Database {
		p.addf(m.keys["inserts"], "a flow that inserts rows uses the database; add database: true to it")
	}
	if len(p.problems) == before && len(flow.Steps) > 0 {
		// The engine's own check: names captured before they are used,
		// templates, captures.
		if _, err := load.NewFlowUser(flow, 0); err != nil {
			p.addf(m.node, "flow %s: %v", c.Name, flowMessage(err))
		}
	}
	c.Flow = flow
	c.Compare = workload.CompareNone
	return c, len(p.problems) == before
}

// flowMessage turns the engine's field names into the file's.
func flowMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 && strings.HasPrefix(msg, "flow.steps[") {
		msg = msg[i+2:]
	}
	return strings.ReplaceAll(msg, "think_ms", "think")
}

// flowStep reads one step of a flow.
func (p *parser) flowStep(n *yaml.Node) (load.FlowStep, workload.StepParity, bool) {
	before := len(p.problems)
	st := load.FlowStep{Method: http.MethodGet, Expect: []int{http.StatusOK}}
	sp := workload.StepParity{Compare: workload.CompareJSON}
	m, ok := p.fields(n, "a flow step", flowStepKeys, "{name: login, method: POST, path: /login, capture: {token: body.token}}")
	if !ok {
		return st, sp, false
	}
	if v := m.get("name"); v != nil {
		st.Name, _ = p.ident(v, "step", "login")
	} else {
		p.addf(n, "this step has no name; add name: a short name such as login")
	}
	if v := m.get("method"); v != nil {
		if method, ok := p.str(v, "method", "method: POST"); ok {
			st.Method = strings.ToUpper(method)
			if !slices.Contains(httpMethods, st.Method) {
				p.addf(v, "unknown method %q; write one of: %s", method, strings.Join(httpMethods, ", "))
			}
		}
	}
	if st.Method != http.MethodGet && st.Method != http.MethodHead {
		sp.Compare = workload.CompareStatus // a write's answer holds what it made
	}
	if v := m.get("path"); v != nil {
		st.Path, _ = p.path(v, "path", "/login")
	} else {
		p.addf(n, "this step has no path; add path: e.g. path: /login")
	}
	if v := m.get("headers"); v != nil {
		for _, h := range p.headers(v) {
			if st.Headers == nil {
				st.Headers = map[string]string{}
			}
			st.Headers[h.Name] = h.Value
		}
	}
	if v := m.get("body"); v != nil {
		st.Body = string(p.body(v))
	}
	if v := m.get("expect"); v != nil {
		st.Expect = p.statuses(v)
	}
	if v := m.get("capture"); v != nil {
		for _, c := range p.captures(v) {
			if st.Capture == nil {
				st.Capture = map[string]string{}
			}
			st.Capture[c.Name] = c.Path
		}
	}
	if v := m.get("think"); v != nil {
		if s, ok := p.str(v, "think", "think: 100ms"); ok {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 || d > time.Minute {
				p.addf(v, "think %q: a duration from 0 to 1m, e.g. think: 100ms", s)
			} else {
				st.ThinkMillis = int(d / time.Millisecond)
			}
		}
	}
	if v := m.get("compare"); v != nil {
		if mode, ok := p.str(v, "compare", "compare: json"); ok {
			if slices.Contains(workload.CompareModes, mode) {
				sp.Compare = mode
			} else {
				p.addf(v, "unknown compare mode %q; %s", mode, didYouMean(mode, workload.CompareModes))
			}
		}
	}
	if v := m.get("ignore"); v != nil {
		if items, ok := p.items(v, "ignore", `ignore: [createdAt]`); ok {
			for _, it := range items {
				if path, ok := p.str(it, "an ignore path", "createdAt"); ok {
					sp.Ignore = append(sp.Ignore, path)
				}
			}
		}
	}
	return st, sp, len(p.problems) == before
}

// checkFlowCases refuses what a flow cannot be measured by: a gRPC stack,
// open-loop latency windows split across generator hosts. (A flow goes
// over HTTP/1.1 and HTTP/2, with or without TLS: on an h2 or h2c stack
// each stream is a user; across generator hosts each generator runs its
// share of the users.) Latency windows take a flow in the open model:
// flows started at the offered rate (flows per second), each timed from
// its scheduled start (docs/statistics.md, "Latency at a fixed rate").
func checkFlowCases(file string, p *Plan, cases []workload.Case) []Problem {
	var ps []Problem
	for _, c := range cases {
		if !c.IsFlow() {
			continue
		}
		if p.Roles != nil && len(p.Roles.Generators) > 0 && p.Protocol.Latency != nil {
			ps = append(ps, Problem{File: file, Msg: fmt.Sprintf("case %q is a flow, and flows at a fixed rate are not yet split across generator hosts (closed-loop windows are); leave the flow out of protocol: cases, or remove latency:, or leave generators: out of roles:", c.Name)})
		}
	}
	return ps
}
