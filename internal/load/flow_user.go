package load

import (
	"math/rand/v2"
	"net/http"
)

// FlowUser is one user walking through a flow outside the engine — the
// parity gate sends each step with its own client — with the engine's
// templates and captures, so both send the same requests.
type FlowUser struct {
	cf *compiledFlow
	st flowState
}

// NewFlowUser checks f and returns its first user (user 0, seeded with
// seed as the engine seeds its users).
func NewFlowUser(f *Flow, seed uint64) (*FlowUser, error) {
	cf, err := compileFlow(f)
	if err != nil {
		return nil, err
	}
	return &FlowUser{cf: cf, st: flowState{vars: make([][]byte, cf.slots), rng: *rand.NewPCG(seed, 0)}}, nil
}

// Request is step i's request with what the user captured so far.
func (u *FlowUser) Request(i int) Request {
	s := &u.cf.steps[i]
	req := Request{Method: s.method, Path: string(u.st.appendParts(nil, s.path)), Body: string(u.st.appendParts(nil, s.body))}
	if len(s.headers) > 0 {
		req.Headers = map[string]string{}
		for _, h := range s.headers {
			req.Headers[h.name] = string(u.st.appendParts(nil, h.value))
		}
	}
	return req
}

// Succeeded reports whether status is a success of step i.
func (u *FlowUser) Succeeded(i, status int) bool {
	return status >= 0 && status < len(u.cf.steps[i].success) && u.cf.steps[i].success[status]
}

// Capture takes step i's captures from its answer; false when one finds
// nothing (the step fails as the engine's would, class capture).
func (u *FlowUser) Capture(i int, header http.Header, body []byte) bool {
	return u.st.captureFrom(&u.cf.steps[i], func(name string) ([]byte, bool) {
		v, ok := header[http.CanonicalHeaderKey(name)]
		if !ok || len(v) == 0 {
			return nil, false
		}
		return []byte(v[0]), true
	}, body)
}
