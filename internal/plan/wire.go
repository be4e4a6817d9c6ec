package plan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/load/grpcmsg"
	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

// Wire is how the load generator reaches a stack: the protocol:, tls:,
// streams: and proto: keys of a stack (docs/config.md, "The wire").
type Wire struct {
	// Protocol is one of Protocols; "" is WireHTTP1.
	Protocol string `json:"protocol,omitempty"`
	// TLS is true when the stack serves TLS (tls: on): the harness makes
	// a throwaway certificate authority and a certificate for the run,
	// passes the certificate and its key to the stack (TLSCertEnv,
	// TLSKeyEnv) and the generator trusts that authority only.
	TLS bool `json:"tls,omitempty"`
	// Streams is the number of requests in flight at once on each HTTP/2
	// connection (h2, h2c, grpc); 0 means 1.
	Streams int `json:"streams,omitempty"`
	// Proto is a gRPC stack's descriptors: a .proto file or a descriptor
	// set, relative to the stack's dir (or absolute), or ProtoReflect
	// for gRPC server reflection.
	Proto string `json:"proto,omitempty"`
}

// The values of protocol:.
const (
	WireHTTP1 = load.ProtoHTTP1
	WireH2    = load.ProtoH2
	WireH2C   = load.ProtoH2C
	WireGRPC  = load.ProtoGRPC
)

// Protocols are the values of a stack's protocol: key.
var Protocols = []string{WireHTTP1, WireH2, WireH2C, WireGRPC}

// ProtoReflect is proto:'s value for gRPC server reflection.
const ProtoReflect = "reflect"

// ProtocolEnv is the variable a stack whose protocol: is not http1 is
// given, holding it (h2, h2c or grpc), so that a server able to speak
// several wires knows which is asked of it.
const ProtocolEnv = "STACKBENCH_PROTOCOL"

// The environment variables a stack with tls: on is given: the paths of
// its certificate (PEM, signed by the run's throwaway authority) and of
// the certificate's key (PEM).
const (
	TLSCertEnv = "TLS_CERT_FILE"
	TLSKeyEnv  = "TLS_KEY_FILE"
)

// ProtocolOf is the stack's protocol, WireHTTP1 when the file names none.
func (w Wire) ProtocolOf() string {
	if w.Protocol == "" {
		return WireHTTP1
	}
	return w.Protocol
}

// Describe is the wire in words, as the report names it: "HTTP/1.1",
// "h2c, 100 streams a connection", "gRPC over TLS, 100 streams a
// connection".
func (w Wire) Describe() string {
	name := map[string]string{WireHTTP1: "HTTP/1.1", WireH2: "HTTP/2", WireH2C: "h2c", WireGRPC: "gRPC"}[w.ProtocolOf()]
	if w.TLS {
		name += " over TLS"
	}
	if w.ProtocolOf() != WireHTTP1 {
		name += fmt.Sprintf(", %d stream%s a connection", max(1, w.Streams), map[bool]string{true: "s", false: ""}[max(1, w.Streams) > 1])
	}
	return name
}

// GRPC reports whether the stack speaks gRPC.
func (w Wire) GRPC() bool { return w.Protocol == WireGRPC }

// ProtoFile is the stack's descriptors file, absolute; "" for reflection
// or a stack that is not gRPC.
func (s Stack) ProtoFile() string {
	if s.Wire.Proto == "" || s.Wire.Proto == ProtoReflect {
		return ""
	}
	if filepath.IsAbs(s.Wire.Proto) {
		return s.Wire.Proto
	}
	return filepath.Join(s.Dir, s.Wire.Proto)
}

// Scheme is "https" for a stack with TLS, "http" otherwise.
func (w Wire) Scheme() string {
	if w.TLS {
		return "https"
	}
	return "http"
}

const grpcExample = "grpc: {method: saas.Users/GetUser, message: '{\"id\": 42}'}"

const metadataExample = "metadata: {authorization: 'Bearer ${token}'}"

// wire reads a stack's wire keys from m into s.Wire, and a gRPC stack's
// health: (a method called with an empty message, which it must name)
// into s.Health.
func (p *parser) wire(m mapping, s *Stack, what string) {
	w := &s.Wire
	if v := m.get("protocol"); v != nil {
		if proto, ok := p.str(v, "protocol", "protocol: h2c"); ok {
			if slices.Contains(Protocols, proto) {
				if proto != WireHTTP1 {
					w.Protocol = proto
				}
			} else {
				p.addf(v, "protocol %q is not known; %s (http1: HTTP/1.1; h2: HTTP/2 over TLS; h2c: HTTP/2 in cleartext; grpc: gRPC unary calls over HTTP/2)", proto, didYouMean(proto, Protocols))
			}
		}
	}
	if v := m.get("tls"); v != nil {
		if on := p.onOff(v, "tls"); on != nil {
			w.TLS = *on
		}
	}
	if w.Protocol == WireH2 {
		if v := m.get("tls"); v != nil && !w.TLS {
			p.addf(v, "%s has protocol: h2, HTTP/2 over TLS, and tls: off; write tls: on, or protocol: h2c for HTTP/2 in cleartext", what)
		}
		w.TLS = true
	}
	if v := m.get("streams"); v != nil {
		if n, ok := p.atLeast(v, "streams", 1, "streams: 100"); ok {
			switch {
			case n > 1000:
				p.addf(v, "streams %d is more than 1000 requests in flight on one connection; write at most streams: 1000", n)
			case n > 1 && w.ProtocolOf() == WireHTTP1:
				p.addf(v, "%s has streams: %d, and HTTP/1.1 carries one request at a time on a connection; write protocol: h2c, h2 or grpc, or leave streams out", what, n)
			default:
				w.Streams = n
			}
		}
	}
	if v := m.get("proto"); v != nil {
		if file, ok := p.str(v, "proto", "proto: api/service.proto"); ok {
			switch {
			case !w.GRPC():
				p.addf(v, "%s has proto: and does not speak gRPC; write protocol: grpc, or remove proto:", what)
			case file == ProtoReflect:
				w.Proto = file
			default:
				w.Proto = file
				if s.Dir != "" {
					if _, err := grpcmsg.Open(s.ProtoFile()); err != nil {
						p.addf(v, "%s: proto %s: %v; name the service's .proto file (relative to dir) or a descriptor set (protoc -o FILE --include_imports), or write proto: reflect", what, file, err)
						w.Proto = ""
					}
				}
			}
		}
	} else if w.GRPC() {
		p.addf(m.node, "%s speaks grpc and has no proto:; add proto: the service's .proto file (relative to dir), a descriptor set, or reflect (gRPC server reflection)", what)
	}
	if v := m.get("pprof"); v != nil && w.GRPC() {
		p.addf(v, "%s has pprof: and speaks grpc; the profiling phase reads pprof: as HTTP requests on the stack's port, which a gRPC server does not answer: remove pprof: (a gRPC stack is profiled by perf)", what)
	}
	if w.GRPC() {
		v := m.get("health")
		if v == nil {
			p.addf(m.node, "%s speaks grpc and has no health:; add health: a unary method the harness calls with an empty message until it answers OK, e.g. health: saas.Users/Health", what)
			return
		}
		if h, ok := p.str(v, "health", "health: saas.Users/Health"); ok {
			if !grpcMethodName(h) {
				p.addf(v, "%s: health %q is not a gRPC method; write health: package.Service/Method, e.g. health: saas.Users/Health", what, h)
				return
			}
			s.Health = "/" + strings.TrimPrefix(h, "/")
		}
	}
}

// grpcMethodName reports whether s has the form package.Service/Method
// (a leading "/" allowed).
func grpcMethodName(s string) bool {
	service, method, ok := strings.Cut(strings.TrimPrefix(s, "/"), "/")
	return ok && service != "" && method != "" && !strings.ContainsAny(method, "/ ") && !strings.ContainsAny(service, " ")
}

// grpcCase reads a case's (or a setup step's) grpc: request, its
// metadata included.
func (p *parser) grpcCase(n *yaml.Node, what string) (*workload.GRPCCall, *yaml.Node, *yaml.Node) {
	m, ok := p.fields(n, what+": grpc", []string{"method", "message", "metadata"}, grpcExample)
	if !ok {
		return nil, nil, nil
	}
	call := &workload.GRPCCall{Message: "{}"}
	mv := m.get("method")
	if mv == nil {
		p.addf(n, "%s: grpc has no method; write %s", what, grpcExample)
		return nil, nil, nil
	}
	if s, ok := p.str(mv, "grpc method", grpcExample); ok {
		if !grpcMethodName(s) {
			p.addf(mv, "%s: grpc method %q is not in the form package.Service/Method; write e.g. method: saas.Users/GetUser", what, s)
			return nil, nil, nil
		}
		call.Method = strings.TrimPrefix(s, "/")
	} else {
		return nil, nil, nil
	}
	msg := m.get("message")
	if msg != nil {
		if s, ok := p.str(msg, "grpc message", grpcExample); ok {
			call.Message = s
		}
	}
	if v := m.get("metadata"); v != nil {
		call.Metadata = p.grpcMetadata(v, what)
	}
	return call, mv, msg
}

// grpcMetadata reads a gRPC call's metadata: a mapping of names to
// single-line values, none of the names the engine sets itself
// (load.CheckGRPCMetadata) nor one given twice.
func (p *parser) grpcMetadata(n *yaml.Node, what string) []workload.Header {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.addf(n, "%s: grpc metadata must be a mapping of names to values, not %s; write %s", what, describe(n), metadataExample)
		return nil
	}
	var out []workload.Header
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			p.addf(k, "%s: grpc metadata: %s: %s is not a name and a value; write %s", what, describe(k), describe(v), metadataExample)
			continue
		}
		if err := load.CheckGRPCMetadata(k.Value, "x"); err != nil {
			p.addf(k, "%s: grpc %v", what, err)
			continue
		}
		if strings.ContainsAny(v.Value, "\r\n") {
			p.addf(v, "%s: grpc metadata %s must be a single line of text; write %s: value", what, k.Value, k.Value)
			continue
		}
		lower := strings.ToLower(k.Value)
		if line, dup := seen[lower]; dup {
			p.addf(k, "%s: grpc metadata %s is already given at line %d; give each name once", what, k.Value, line)
			continue
		}
		seen[lower] = k.Line
		out = append(out, workload.Header{Name: k.Value, Value: v.Value})
	}
	return out
}

// metadataTemplates parses the templates of a gRPC call's metadata
// values, read from node n (grpc:'s mapping), adding a problem for each
// that does not parse (taken as written then).
func (p *parser) metadataTemplates(n *yaml.Node, md []workload.Header, what string) ([]scenario.HeaderTemplate, []*yaml.Node) {
	var ts []scenario.HeaderTemplate
	var nodes []*yaml.Node
	for _, h := range md {
		vn := metadataNode(n, h.Name)
		tp, err := scenario.Parse(h.Value)
		if err != nil {
			p.addAt(vn, err.(*scenario.Error).Offset, "%s: grpc metadata %s: %v", what, h.Name, err)
			tp = scenario.Template{Source: h.Value, Parts: []scenario.Part{{Kind: scenario.Literal, Text: h.Value}}}
		}
		ts, nodes = append(ts, scenario.HeaderTemplate{Name: h.Name, Value: tp}), append(nodes, vn)
	}
	return ts, nodes
}

// metadataNode finds the value node of metadata name in grpc:'s mapping
// n.
func metadataNode(n *yaml.Node, name string) *yaml.Node {
	n = deref(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value != "metadata" {
			continue
		}
		md := deref(n.Content[i+1])
		for j := 0; j+1 < len(md.Content); j += 2 {
			if deref(md.Content[j]).Value == name {
				return deref(md.Content[j+1])
			}
		}
		return md
	}
	return n
}

// grpcNodes are where a case's grpc: request is written, to place a
// problem found once the stacks are read.
type grpcNodes struct {
	method, message *yaml.Node
	template        scenario.Template
	// metadata is the call's metadata as templates, metadataNodes where
	// each value is written.
	metadata      []scenario.HeaderTemplate
	metadataNodes []*yaml.Node
}

// fixed reports whether neither the message nor a metadata value holds
// a reference.
func (g grpcNodes) fixed() bool {
	return scenario.Request{Header: g.metadata, Body: g.template}.Fixed()
}

// metadataFixed reports whether no metadata value holds a reference.
func (g grpcNodes) metadataFixed() bool {
	return scenario.Request{Header: g.metadata}.Fixed()
}

// checkWire checks what needs both the stacks and the workload: each
// gRPC stack's descriptors hold every case's and setup step's method and
// its health method, a fixed message encodes, each stack can be sent
// every setup step (its gRPC call, or its HTTP request). Every wire runs
// across hosts too (roles:): the agents carry the certificate and the
// descriptors (internal/run, site_hosts_wire.go).
func (p *parser) checkWire(f *File) {
	if f.Workload == nil {
		return
	}
	for _, s := range f.Stacks {
		p.checkSetupWire(f, s)
		if !s.Wire.GRPC() {
			continue
		}
		file := s.ProtoFile()
		if file == "" {
			continue // reflection: the methods are asked of the server
		}
		d, err := grpcmsg.Open(file)
		if err != nil {
			continue // reported where proto: is read
		}
		if _, err := d.Method(s.Health); err != nil {
			p.problems = append(p.problems, Problem{File: p.name, Line: s.Line, Msg: fmt.Sprintf("stack %q: health %s: %v", s.Name, strings.TrimPrefix(s.Health, "/"), err)})
		}
		for _, c := range f.Workload.Cases {
			if c.GRPC == nil {
				continue
			}
			nodes := p.grpcNodes[c.Name]
			m, err := d.Method(c.GRPC.Method)
			if err != nil {
				p.addf(nodes.method, "case %s: %v (the descriptors of stack %s); name a method of the service", c.Name, err, s.Name)
				continue
			}
			n := nodes.message
			if n == nil {
				n = nodes.method
			}
			msgs := []string{c.GRPC.Message}
			if c.GRPCTemplated {
				if capturesOf(f.Scenario.Messages[c.Name]) || slices.ContainsFunc(f.Scenario.Metadata[c.Name], func(h scenario.HeaderTemplate) bool { return capturesOf(h.Value) }) {
					// Its variants are known once the setup steps have
					// captured: the parity gate encodes them all.
					continue
				}
				// Every variant, as the run will send them.
				calls, err := f.Scenario.CallVariants(c, nil)
				if err != nil {
					p.addf(n, "%v", err)
					continue
				}
				msgs = msgs[:0]
				for _, call := range calls {
					msgs = append(msgs, call.Message)
				}
			}
			for k, msg := range msgs {
				if _, err := m.Encode(msg); err != nil {
					variant := ""
					if c.GRPCTemplated {
						variant = fmt.Sprintf(", variant %d (%s)", k+1, msg)
					}
					p.addf(n, "case %s: grpc message%s: %v", c.Name, variant, err)
					break
				}
			}
		}
		p.checkGRPCSteps(f, s, d)
	}
}

// capturesOf reports whether t refers to a captured value.
func capturesOf(t scenario.Template) bool {
	return slices.ContainsFunc(t.Refs(), func(r scenario.Part) bool { return r.Kind == scenario.Capture })
}

// checkSetupWire checks that stack s can be sent every setup step: a gRPC
// stack its gRPC call, another stack its HTTP request (over the stack's
// wire, TLS and HTTP/2 included).
func (p *parser) checkSetupWire(f *File, s Stack) {
	if f.Scenario == nil {
		return
	}
	for _, st := range f.Scenario.Steps {
		switch {
		case s.Wire.GRPC() && st.GRPC == nil:
			p.problems = append(p.problems, Problem{File: p.name, Line: s.Line, Msg: fmt.Sprintf(
				"stack %q speaks grpc and setup step %s is an HTTP request; write the step as a gRPC call too, e.g. %s with capture: {token: body.token} reading the answer as JSON (or leave the stack out: --stacks)",
				s.Name, st.Name, grpcExample)})
		case !s.Wire.GRPC() && !st.HasHTTP():
			p.problems = append(p.problems, Problem{File: p.name, Line: s.Line, Msg: fmt.Sprintf(
				"stack %q speaks %s and setup step %s is only a gRPC call; add the step's HTTP request (path:, and method:, body:), or leave the stack out (--stacks)",
				s.Name, s.Wire.ProtocolOf(), st.Name)})
		}
	}
}

// checkGRPCSteps checks the setup steps' gRPC calls against gRPC stack s's
// descriptors d: each method is one of the service's, and a message that
// refers to no captured value encodes.
func (p *parser) checkGRPCSteps(f *File, s Stack, d *grpcmsg.Descriptors) {
	if f.Scenario == nil {
		return
	}
	for _, st := range f.Scenario.Steps {
		if st.GRPC == nil {
			continue
		}
		nodes := p.stepGRPC[st.Name]
		m, err := d.Method(st.GRPC.Method)
		if err != nil {
			p.addf(nodes.method, "setup step %s: %v (the descriptors of stack %s); name a method of the service", st.Name, err, s.Name)
			continue
		}
		if !st.GRPC.Message.Fixed() {
			continue // its references resolve when the step runs
		}
		n := nodes.message
		if n == nil {
			n = nodes.method
		}
		if _, err := m.Encode(st.GRPC.Message.Source); err != nil {
			p.addf(n, "setup step %s: grpc message: %v", st.Name, err)
		}
	}
}

// checkWireCases checks that every selected stack can send every selected
// case: a gRPC stack needs the case's grpc: request, another stack its
// path.
func checkWireCases(file string, stacks []Stack, cases []workload.Case) []Problem {
	var ps []Problem
	for _, s := range stacks {
		for _, c := range cases {
			switch {
			case s.Wire.GRPC() && (c.IsMix() || c.IsFlow()):
				ps = append(ps, Problem{File: file, Line: s.Line, Msg: fmt.Sprintf(
					"stack %q speaks grpc and case %q is a mix or a flow, which sends HTTP requests; leave it out (protocol: cases) or the stack (--stacks)",
					s.Name, c.Name)})
			case s.Wire.GRPC() && c.GRPC == nil:
				ps = append(ps, Problem{File: file, Line: s.Line, Msg: fmt.Sprintf(
					"stack %q speaks grpc and case %q has no gRPC request; add %s to the case, or leave the case out (protocol: cases) or the stack (--stacks)",
					s.Name, c.Name, grpcExample)})
			case s.Wire.GRPC() && !slices.ContainsFunc(c.Expect, func(st int) bool { return st >= 200 && st < 300 }):
				ps = append(ps, Problem{File: file, Line: s.Line, Msg: fmt.Sprintf(
					"stack %q speaks grpc and case %q expects %v, an error: a gRPC call succeeds only with grpc-status 0, so every call of the case would count as a failure; leave the case out of the run (protocol: cases), its parity check still runs",
					s.Name, c.Name, c.Expect)})
			case !s.Wire.GRPC() && !c.HasHTTP() && !c.IsMix() && !c.IsFlow():
				ps = append(ps, Problem{File: file, Line: s.Line, Msg: fmt.Sprintf(
					"stack %q speaks %s and case %q has only a gRPC request; add path: (and method:, body:) to the case, or leave the case out (protocol: cases) or the stack (--stacks)",
					s.Name, s.Wire.ProtocolOf(), c.Name)})
			}
		}
	}
	return ps
}

// grpcRequest reads a case's grpc: request and parses its message's
// template, keeping its nodes for the checks that need the stacks.
func (p *parser) grpcRequest(n *yaml.Node, caseName string) *workload.GRPCCall {
	what := "case " + caseName
	call, mv, msg := p.grpcCase(n, what)
	if call == nil {
		return nil
	}
	g := grpcNodes{method: mv, message: msg}
	tp, err := scenario.Parse(call.Message)
	if err != nil {
		p.addAt(deref(msg), err.(*scenario.Error).Offset, "%s: grpc message: %v", what, err)
		tp = scenario.Template{Source: call.Message, Parts: []scenario.Part{{Kind: scenario.Literal, Text: call.Message}}}
	}
	g.template = tp
	g.metadata, g.metadataNodes = p.metadataTemplates(n, call.Metadata, what)
	if p.grpcNodes == nil {
		p.grpcNodes = map[string]grpcNodes{}
	}
	p.grpcNodes[caseName] = g
	return call
}

// templated is a case's gRPC message and metadata as a templated request
// (its body and headers), for checkRefs.
func (g grpcNodes) templated(caseName string) templated {
	n := deref(g.message)
	if n == nil {
		n = deref(g.method)
	}
	nodes := append(append([]*yaml.Node{n}, g.metadataNodes...), n)
	return templated{req: scenario.Request{Header: g.metadata, Body: g.template}, nodes: nodes, what: "case " + caseName + ": grpc", grpcCall: true}
}
