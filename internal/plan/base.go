package plan

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// base reads a stack's base path (base: /api): the prefix of every path
// the harness asks the stack, cases, setup steps, health and parity
// alike. It returns "" for "/" and drops a trailing '/'.
func (p *parser) base(n *yaml.Node, s *Stack) string {
	b, ok := p.path(n, "base", "/api")
	if !ok {
		return ""
	}
	if strings.ContainsAny(b, "?#% \t\r\n") {
		p.addf(n, "base %q must be a plain path, without a query, a fragment, escapes or spaces; write e.g. base: /api", b)
		return ""
	}
	if strings.Contains(b, "//") || strings.Contains(b, "/../") || strings.HasSuffix(b, "/..") {
		p.addf(n, "base %q is not a clean path; write e.g. base: /api", b)
		return ""
	}
	if s.Wire.GRPC() {
		p.addf(n, "base applies to HTTP paths, and this stack speaks grpc (its methods have no base path); remove base")
		return ""
	}
	return strings.TrimSuffix(b, "/")
}

// BaseURL is where the harness reaches stack s at addr (host:port): its
// scheme, the address and its base path, with no trailing '/'. Every
// request path is appended to it.
func (s Stack) BaseURL(addr string) string {
	return s.Wire.Scheme() + "://" + addr + s.Base
}
