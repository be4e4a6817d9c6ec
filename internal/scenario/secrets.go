package scenario

import (
	"regexp"
	"strings"

	"github.com/stackbench/stackbench/internal/workload"
)

// secretName matches the name of a capture that holds a credential.
// "author" and "keyword" are data: auth and key count alone or as a
// word's start ("auth", "authorization", "api_key", "apiKey").
var secretName = regexp.MustCompile(`(?i)token|passw|secret|session|cookie|jwt|credential|bearer|csrf|otp|signature|private|^auth($|[^o])|api_?key|^key$`)

// SecretCaptures returns the names of the captures that hold credentials,
// which findings, logs and files never show: one named like a
// credential (token, password, secret, session, api_key…) or whose path
// ends in such a name (body.user.password), one taken
// from a credential header (header.Authorization, header.Set-Cookie), and
// one sent in a credential header (Authorization, Cookie; gRPC metadata
// alike) by a step or a case. Others — an id, a slug — are data, shown
// so that a finding can be read.
func (s *Scenario) SecretCaptures() map[string]bool {
	out := map[string]bool{}
	if s == nil {
		return out
	}
	sent := func(hs []HeaderTemplate) {
		for _, h := range hs {
			if !workload.IsSensitiveHeader(h.Name) {
				continue
			}
			for _, p := range h.Value.Parts {
				if p.Kind == Capture {
					out[p.Text] = true
				}
			}
		}
	}
	for _, st := range s.Steps {
		for _, c := range st.Capture {
			from, name, _ := strings.Cut(c.Path, ".")
			last := name[strings.LastIndexAny(name, ".#")+1:]
			if secretName.MatchString(c.Name) || secretName.MatchString(last) || (strings.EqualFold(from, "header") && workload.IsSensitiveHeader(name)) {
				out[c.Name] = true
			}
		}
		sent(st.Request.Header)
		if st.GRPC != nil {
			sent(st.GRPC.Metadata)
		}
	}
	for _, r := range s.Cases {
		sent(r.Header)
	}
	for _, md := range s.Metadata {
		sent(md)
	}
	return out
}
