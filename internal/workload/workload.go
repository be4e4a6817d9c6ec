// Package workload defines stackbench's built-in workloads: the routes a
// stack serves (cases), the request the load sends for each, and the
// contract checks the parity gate runs (see docs/workloads.md and
// ../shared/docs/saas-slice.md).
package workload

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/pgfix"
)

// DefaultJWTSecret is the HS256 key the harness passes as JWT_SECRET unless
// the user sets another.
const DefaultJWTSecret = "bench-secret-do-not-use-in-prod"

// Header is one request header, kept in order.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Case is one route of a workload and the request the load sends to it.
type Case struct {
	Name   string
	Method string
	Path   string // path and query, starting with "/"
	Header []Header
	Body   []byte
	// Expect lists the statuses that count as success.
	Expect []int
	// Inserts is true when the request writes rows to the orders table, so
	// the table is reset before every window of this case (trap T3).
	Inserts bool
	// Database is true when the route reads or writes the database; reports
	// summarise database routes apart from framework-only routes.
	Database bool
	// Compare is how the parity gate holds the case's success bodies
	// against the first stack's (CompareExact … CompareNone); "" is exact.
	Compare string
	// Ignore lists gjson-style paths left out of a json comparison ("#"
	// for every element of an array: "articles.#.createdAt").
	Ignore []string
	// Templated is true when Path, a header value or Body holds ${…}
	// references: the requests are the variants internal/scenario expands,
	// never the fields as written.
	Templated bool
	// GRPC is the case's request to a stack that speaks gRPC (protocol:
	// grpc); nil when the case has none. Path is then empty when the case
	// has no HTTP request either.
	GRPC *GRPCCall
	// GRPCTemplated is true when GRPC.Message or a metadata value holds
	// ${…} references.
	GRPCTemplated bool
	// Mix, when not empty, makes the case a weighted mix of other cases of
	// the workload (its routes): the load sends their requests interleaved
	// by weight, in one sequence fixed by MixSeed, and measures each route
	// apart as well as the whole. Method, Path, Header and Body are then
	// empty; Inserts, Database and Templated say whether any route does.
	Mix     []MixPart
	MixSeed uint64
	// CallRoutes, on a mix, puts each route's p50 and p99 steps in the
	// run's false-call family (mix: {call_routes: true}); without it they
	// are shown with their estimates and intervals, not called.
	CallRoutes bool
	// Flow, when set, makes the case a flow: each connection a virtual
	// user running its steps in turn, with captures from step to step
	// (load.Flow). FlowParity says how the parity gate compares each
	// step's answer across stacks, in step order. Method, Path, Header and
	// Body are then empty.
	Flow       *load.Flow
	FlowParity []StepParity
}

// StepParity is how parity compares a flow's step: its compare mode and
// ignore paths, as a case's.
type StepParity struct {
	Compare string
	Ignore  []string
}

// IsFlow reports whether the case is a flow.
func (c Case) IsFlow() bool { return c.Flow != nil }

// MixPart is one route of a mix case: a case of the workload and its
// weight.
type MixPart struct {
	Case   string `json:"case"`
	Weight int    `json:"weight"`
}

// IsMix reports whether the case is a mix of other cases.
func (c Case) IsMix() bool { return len(c.Mix) > 0 }

// GRPCCall is a unary gRPC call as a case writes it.
type GRPCCall struct {
	// Method is "package.Service/Method".
	Method string `json:"method"`
	// Message is the request as JSON, in protobuf's JSON mapping.
	Message string `json:"message"`
	// Metadata is the call's request metadata, sent as HTTP/2 header
	// fields (e.g. authorization: Bearer …); names as written.
	Metadata []Header `json:"metadata,omitempty"`
}

// HasHTTP reports whether the case has an HTTP request (a path).
func (c Case) HasHTTP() bool { return c.Path != "" }

// Workload is a named list of cases.
type Workload struct {
	Name string
	// NeedsDatabase is true when stacks need DATABASE_URL and a seeded fixture.
	NeedsDatabase bool
	Cases         []Case
	// Health is the path stacks of this workload are polled on until they
	// answer, when the stack does not name one; "" is "/health".
	Health string
	// TFB holds the tfb workload's settings; nil for every other workload.
	TFB *TFBOptions
}

// Case returns the case with the given name.
func (w *Workload) Case(name string) (Case, bool) {
	for _, c := range w.Cases {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// CaseNames returns the names of the cases in order.
func (w *Workload) CaseNames() []string {
	names := make([]string, len(w.Cases))
	for i, c := range w.Cases {
		names[i] = c.Name
	}
	return names
}

// Names lists the built-in workloads.
func Names() []string { return []string{"saas-slice", "micro", "tfb"} }

// Builtin returns a built-in workload by name. jwtSecret signs the token the
// `me` case sends; pass DefaultJWTSecret unless the user chose another.
func Builtin(name, jwtSecret string) (*Workload, bool) {
	switch name {
	case "saas-slice":
		return saasSlice(jwtSecret), true
	case "micro":
		return micro(), true
	case "tfb":
		w, _ := TFB(TFBOptions{}) // the defaults are valid
		return w, true
	}
	return nil, false
}

// BuiltinFixture is the database a built-in workload's stacks get when it
// is not the saas-slice seed (tfb's); nil for the seed.
func BuiltinFixture(name string) *pgfix.Fixture {
	if name == "tfb" {
		return TFBWorkloadFixture()
	}
	return nil
}

var jsonHeader = []Header{{Name: "Content-Type", Value: "application/json"}}

func saasSlice(secret string) *Workload {
	return &Workload{
		Name:          "saas-slice",
		NeedsDatabase: true,
		Cases: []Case{
			{Name: "health", Method: "GET", Path: "/health", Expect: []int{200}},
			{Name: "echo", Method: "POST", Path: "/echo", Header: jsonHeader,
				Body:   []byte(`{"name":"Jane Doe","email":"jane@example.com","age":30,"tags":["a","b"]}`),
				Expect: []int{200}},
			{Name: "me", Method: "GET", Path: "/me",
				Header:   []Header{{Name: "Authorization", Value: "Bearer " + HarnessToken(secret)}},
				Expect:   []int{200},
				Database: true},
			{Name: "user", Method: "GET", Path: "/users/4242", Expect: []int{200}, Database: true},
			{Name: "list", Method: "GET", Path: "/users?page=7&limit=20", Expect: []int{200}, Database: true},
			{Name: "order", Method: "POST", Path: "/orders", Header: jsonHeader,
				Body:     []byte(`{"userId":4242,"amount":19.99,"currency":"USD"}`),
				Expect:   []int{201},
				Inserts:  true,
				Database: true},
			{Name: "cpu", Method: "GET", Path: "/cpu?n=15000", Expect: []int{200}},
		},
	}
}

func micro() *Workload {
	return &Workload{
		Name: "micro",
		Cases: []Case{
			{Name: "get", Method: "GET", Path: "/users/42", Expect: []int{200}},
			{Name: "post", Method: "POST", Path: "/users", Header: jsonHeader,
				Body:   []byte(`{"name":"Ada","email":"ada@example.com"}`),
				Expect: []int{201}},
		},
	}
}

// HarnessToken returns the token the published runs used: header
// {"alg":"HS256"}, claims {"sub":"4242","iat":0}, no exp, signed with secret.
func HarnessToken(secret string) string {
	return SignHS256(`{"alg":"HS256"}`, `{"sub":"4242","iat":0}`, secret)
}

// SignHS256 builds a compact JWS from the exact header and claims JSON given,
// signed with HMAC-SHA256. Parity checks use it to craft both valid and
// deliberately broken tokens byte for byte.
func SignHS256(headerJSON, claimsJSON, secret string) string {
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString([]byte(headerJSON)) + "." + enc.EncodeToString([]byte(claimsJSON))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(signing))
	return signing + "." + enc.EncodeToString(mac.Sum(nil))
}
