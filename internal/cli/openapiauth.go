package cli

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// openAPIBase is the base path of an OpenAPI document's first server
// ("/api" of "https://conduit.example.com/api" or of "/api/"), its
// variables set to their defaults; "" when it has none.
func openAPIBase(ctx context.Context, path string) (base, note string) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromFile(path)
	if err != nil || len(doc.Servers) == 0 || doc.Servers[0] == nil {
		return "", ""
	}
	s := doc.Servers[0]
	raw := s.URL
	for name, v := range s.Variables {
		if v != nil {
			raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", ""
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" || !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "{}?#% ") {
		return "", ""
	}
	return p, "from servers: in " + filepath.Base(path)
}

// securityHeader is the header an operation's security requirement asks
// for (the operation's, else the document's), its value read from the
// environment — ${env:API_TOKEN} for a bearer token — and a comment on
// how to give it; nothing for an operation without one, or whose schemes
// are not sent in a header (OAuth2 flows, cookies).
func securityHeader(doc *openapi3.T, op *openapi3.Operation) ([][2]string, string) {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	for _, req := range reqs {
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range req {
				if !yield(k) {
					return
				}
			}
		}) {
			ref := doc.Components.SecuritySchemes[name]
			if ref == nil || ref.Value == nil {
				continue
			}
			s := ref.Value
			env := "API_TOKEN"
			var h [2]string
			switch {
			case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
				h = [2]string{"Authorization", "Bearer ${env:API_TOKEN}"}
			case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
				env = "API_BASIC"
				h = [2]string{"Authorization", "Basic ${env:API_BASIC}"}
			case s.Type == "apiKey" && s.In == "header" && s.Name != "":
				// The whole value: RealWorld's "Token jwt…" included.
				env = "API_KEY"
				h = [2]string{s.Name, "${env:API_KEY}"}
			case s.Type == "openIdConnect" || s.Type == "oauth2":
				h = [2]string{"Authorization", "Bearer ${env:API_TOKEN}"}
			default:
				continue
			}
			return [][2]string{h}, fmt.Sprintf("secured (%s): set %s, or log in with a setup step that captures a token and send ${token} here", name, env)
		}
	}
	return nil, ""
}
