package scenario

import (
	"context"
	"fmt"

	"github.com/stackbench/stackbench/internal/workload"
)

// Scenario is what a custom workload adds to its cases: setup steps and
// templated requests, with the environment values and line files they read
// (resolved when the comparison file is loaded).
type Scenario struct {
	Steps []Step
	// Cases holds the templated cases' requests, by case name.
	Cases map[string]Request
	// Messages holds the templated gRPC request messages, by case name.
	Messages map[string]Template `json:",omitempty"`
	// Metadata holds the gRPC request metadata of the cases where a
	// value is templated, by case name.
	Metadata map[string][]HeaderTemplate `json:",omitempty"`
	// Env holds the ${env:NAME} values, Lines each ${line:FILE}'s lines.
	Env   map[string]string
	Lines map[string][]string
}

// Values is the scenario's values with captures.
func (s *Scenario) Values(captures map[string][]string) Values {
	return Values{Captures: captures, Lines: s.Lines, Getenv: func(name string) string { return s.Env[name] }}
}

// Secrets returns the values that must not be shown or written: every
// ${env:…} value the file reads and the values of the captures that hold
// credentials (SecretCaptures); a captured id or slug is shown.
func (s *Scenario) Secrets(captures map[string][]string) workload.Secrets {
	if s == nil {
		return nil
	}
	var out workload.Secrets
	for _, v := range s.Env {
		out = out.Add(v)
	}
	secret := s.SecretCaptures()
	for name, vs := range captures {
		if secret[name] {
			out = out.Add(vs...)
		}
	}
	return out
}

// Has reports whether some setup step has the given scope.
func (s *Scenario) Has(scope Scope) bool {
	for _, st := range s.Steps {
		if st.Scope == scope {
			return true
		}
	}
	return false
}

// Ordered returns the steps in the order they run: the stack-scoped ones
// (on a stack's first process), then the process-scoped ones, each in file
// order.
func (s *Scenario) Ordered() []Step {
	var out []Step
	for _, scope := range []Scope{ScopeStack, ScopeProcess} {
		for _, st := range s.Steps {
			if st.Scope == scope {
				out = append(out, st)
			}
		}
	}
	return out
}

// Setup runs the steps of scope against the stack's process t with the
// captures known so far (nil for a stack's first process).
func (s *Scenario) Setup(ctx context.Context, t Target, scope Scope, known map[string][]string) (map[string][]string, error) {
	return RunSetup(ctx, t.BaseURL, s.Steps, scope, known, SetupOptions{Client: t.Client, Method: t.Method, Getenv: func(name string) string { return s.Env[name] }, Lines: s.Lines, Secret: s.SecretCaptures()})
}

// Variants returns the requests the load sends for case c with the given
// captures: its expanded variants when it is templated, else its one
// request.
func (s *Scenario) Variants(c workload.Case, captures map[string][]string) ([]workload.Request, error) {
	r, ok := s.Cases[c.Name]
	if !ok {
		return []workload.Request{{Method: c.Method, Path: c.Path, Header: c.Header, Body: c.Body}}, nil
	}
	out, err := r.Expand(c.Name, s.Values(captures))
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	return out, nil
}

// CallVariants returns the gRPC calls the load sends for case c (which
// has a gRPC request): its expanded variants when its message or a
// metadata value is templated, else its call as written. Variant k
// draws its ${rand:…} numbers from the same seeded sequence as variant k
// of the case's HTTP request, so a path /users/${rand:1..50000} and a
// message {"id": ${rand:1..50000}} ask for the same user, variant by
// variant.
func (s *Scenario) CallVariants(c workload.Case, captures map[string][]string) ([]workload.GRPCCall, error) {
	if c.GRPC == nil {
		return nil, fmt.Errorf("case %s has no gRPC request", c.Name)
	}
	var msg Template
	var md []HeaderTemplate
	var okMsg, okMD bool
	if s != nil {
		msg, okMsg = s.Messages[c.Name]
		md, okMD = s.Metadata[c.Name]
	}
	if !okMsg && !okMD {
		return []workload.GRPCCall{*c.GRPC}, nil
	}
	if !okMsg {
		msg = Template{Source: c.GRPC.Message, Parts: []Part{{Kind: Literal, Text: c.GRPC.Message}}}
	}
	if !okMD {
		for _, h := range c.GRPC.Metadata {
			md = append(md, HeaderTemplate{Name: h.Name, Value: Template{Source: h.Value, Parts: []Part{{Kind: Literal, Text: h.Value}}}})
		}
	}
	out, err := ExpandCall(c.Name, c.GRPC.Method, msg, md, s.Values(captures))
	if err != nil {
		return nil, fmt.Errorf("case %s: grpc: %w", c.Name, err)
	}
	return out, nil
}

// Planned returns how many variants case c will have, as far as the file
// says: a repeated step's capture counts its repeat, another capture one
// value; exact is false when a capture of a step that is not repeated is
// used (it may find a JSON array, a list of any length).
func (s *Scenario) Planned(c workload.Case) (n int, exact bool, err error) {
	r, ok := s.Cases[c.Name]
	if !ok {
		return 1, true, nil
	}
	captures, repeated := map[string][]string{}, map[string]bool{}
	for _, st := range s.Steps {
		for _, cp := range st.Capture {
			captures[cp.Name] = make([]string, max(1, st.Repeat))
			repeated[cp.Name] = st.Repeat > 1
		}
	}
	exact = true
	_, ts := r.Templates()
	for _, t := range ts {
		for _, p := range t.Refs() {
			if p.Kind == Capture && !repeated[p.Text] {
				exact = false
			}
		}
	}
	n, err = r.Count(s.Values(captures))
	return n, exact, err
}

// Lookup returns the templated request of a case; a nil Scenario has none.
func (s *Scenario) Lookup(caseName string) (Request, bool) {
	if s == nil {
		return Request{}, false
	}
	r, ok := s.Cases[caseName]
	return r, ok
}
