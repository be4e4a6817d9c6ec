package workload

import (
	"fmt"
	"strings"
)

// Check is one contract check of the parity gate: a request and what a
// correct stack answers. Checks are data; RunChecks interprets them.
type Check struct {
	// Name is unique within a workload, "<case>/<what>", e.g. "user/id-zero".
	Name string `json:"name"`
	// Case is the workload case the check exercises.
	Case   string   `json:"case"`
	Method string   `json:"method"`
	Path   string   `json:"path"` // path and query
	Header []Header `json:"header,omitempty"`
	Body   []byte   `json:"body,omitempty"`
	// GRPC, when set, is the check's request to a gRPC stack: the call
	// replaces Method, Path, Header and Body.
	GRPC   *GRPCCall `json:"grpc,omitempty"`
	Expect Expect    `json:"expect"`
}

// Expect is what a check requires of the response.
type Expect struct {
	// Status lists the allowed statuses. Error bodies are framework-native,
	// so a check without Body or Order looks at the status only.
	Status []int `json:"status"`
	// Body, when set, is the exact body required, with a JSON content type.
	Body string `json:"body,omitempty"`
	// Order, when set, requires a new order: the contract's keys in order,
	// these values, an id and a current createdAt, and the row in the orders
	// table.
	Order *OrderExpect `json:"order,omitempty"`
	// Volatile is true when a success body holds generated values (a custom
	// workload's inserting case), so stacks are not compared on it.
	Volatile bool `json:"volatile,omitempty"`
	// Compare is the case's compare mode ("" is exact) and Ignore its
	// ignored paths (see Case).
	Compare string   `json:"compare,omitempty"`
	Ignore  []string `json:"ignore,omitempty"`
	// TFB, when set, judges the answer by TechEmpower's rules for its
	// test type (tfb_judge.go) instead of Body.
	TFB *TFBRule `json:"tfb,omitempty"`
}

// OrderExpect is the order a check's request creates.
type OrderExpect struct {
	UserID   int    `json:"userId"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// Success reports whether the check expects a 2xx answer, whose body every
// stack must then answer byte for byte alike.
func (e Expect) Success() bool {
	return len(e.Status) > 0 && e.Status[0] >= 200 && e.Status[0] < 300
}

// Sent describes the request in one line, the body cut to maxBytes.
func (c Check) Sent(maxBytes int) string {
	if c.GRPC != nil {
		return grpcSent(c.GRPC, maxBytes)
	}
	var b strings.Builder
	b.WriteString(c.Method + " " + c.Path)
	for _, h := range c.Header {
		if strings.EqualFold(h.Name, "Content-Type") {
			continue
		}
		v := h.Value
		if IsSensitiveHeader(h.Name) {
			v = Redacted
		}
		fmt.Fprintf(&b, " [%s: %s]", h.Name, truncate(v, maxBytes))
	}
	if len(c.Body) > 0 {
		b.WriteString(" " + truncate(string(c.Body), maxBytes))
	}
	return b.String()
}

// Expected describes the expectation in one line, bodies cut to maxBytes.
func (e Expect) Expected(maxBytes int) string {
	s := "status " + statusList(e.Status)
	switch {
	case e.Body != "":
		s += " " + truncate(e.Body, maxBytes)
	case e.TFB != nil:
		s += " " + e.TFB.describe()
	case e.Order != nil:
		s += fmt.Sprintf(` an order {"id":<new>,"userId":%d,"amount":%q,"currency":%q,"createdAt":<now>} stored in orders`,
			e.Order.UserID, e.Order.Amount, e.Order.Currency)
	}
	return s
}

func statusList(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, " or ")
}

// truncate cuts s to at most n bytes (on a rune boundary), marking the cut
// with the number of bytes left out.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%s…(+%d bytes)", s[:cut], len(s)-cut)
}

// Checks returns the parity checks of workload w; secret is the JWT_SECRET
// the stacks are given. Tokens with exp or nbf are made relative to now, so
// call it just before running the checks. A workload that is not built in
// (a user's own) gets one check per case: the load's request must answer
// one of the case's expected statuses, and success bodies must agree across
// stacks.
func Checks(w *Workload, secret string) []Check {
	return checksWith(w, secret, nil)
}

// checksWith is Checks with the requests of a custom workload's templated
// cases given (their first variant, by case).
func checksWith(w *Workload, secret string, requests map[string]Request) []Check {
	switch w.Name {
	case "saas-slice":
		return saasSliceChecks(secret)
	case "micro":
		return microChecks()
	case "tfb":
		return tfbChecks(w)
	}
	return caseChecks(w, requests)
}

// wireChecks keeps the checks a stack can be sent: on a gRPC stack the
// custom cases' checks that have a gRPC call (replaced by the call of
// calls, a templated call's first variant), on another stack the checks
// with a path, the gRPC call dropped.
func wireChecks(checks []Check, grpc bool, calls map[string]GRPCCall) []Check {
	var out []Check
	for _, c := range checks {
		switch {
		case grpc && c.GRPC != nil:
			call := *c.GRPC
			if v, ok := calls[c.Case]; ok {
				call = v
			}
			c.GRPC = &call
			out = append(out, c)
		case !grpc && c.Path != "":
			c.GRPC = nil
			out = append(out, c)
		}
	}
	return out
}

// caseChecks is one check per case of a custom workload: the request its
// load sends, or the first of its variants when requests gives them.
func caseChecks(w *Workload, requests map[string]Request) []Check {
	cs := make([]Check, 0, len(w.Cases))
	for _, c := range w.Cases {
		if c.IsMix() || c.IsFlow() {
			continue // a mix's routes are cases, checked as such; a flow runs as a whole (flowChecks)
		}
		req := Request{Method: c.Method, Path: c.Path, Header: c.Header, Body: c.Body}
		if r, ok := requests[c.Name]; ok {
			req = r
		}
		volatile := c.Inserts && (c.Compare == "" || c.Compare == CompareExact)
		cs = append(cs, Check{Name: c.Name + "/load-request", Case: c.Name, Method: req.Method, Path: req.Path,
			Header: req.Header, Body: req.Body, GRPC: c.GRPC,
			Expect: Expect{Status: c.Expect, Volatile: volatile, Compare: c.Compare, Ignore: c.Ignore}})
	}
	return cs
}
