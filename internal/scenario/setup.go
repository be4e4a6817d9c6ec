package scenario

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/load/grpcmsg"
	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/workload"
	"github.com/tidwall/gjson"
)

// Scope says which processes of a stack a setup step runs against.
type Scope string

// The scopes of a setup step.
const (
	// ScopeStack runs the step once per stack, against its first process;
	// what it captures is kept for the stack's later processes.
	ScopeStack Scope = "stack"
	// ScopeProcess runs the step against every fresh process of a stack.
	ScopeProcess Scope = "process"
)

// CaptureSpec takes one value from a setup step's response: Path is
// "body.<gjson path>" or "header.<Name>".
type CaptureSpec struct {
	Name string
	Path string
}

// Step is one setup request of a workload: an HTTP request (Request, for
// a stack that speaks HTTP), a gRPC call (GRPC, for a stack that speaks
// gRPC), or both, like a case.
type Step struct {
	Name  string
	Scope Scope
	// Repeat sends the request this many times, ${i} = 1..Repeat; 0 or 1
	// sends it once with no ${i}.
	Repeat int
	// Request is the HTTP request; its Path is empty in a step that is
	// only a gRPC call.
	Request Request
	// GRPC is the gRPC call a gRPC stack is sent; nil in a step that is
	// only an HTTP request (left out of the plan's fingerprint then, so
	// that the fingerprints of earlier runs stay the same).
	GRPC *GRPCStep `json:",omitempty"`
	// Expect lists the HTTP statuses that count as success; empty is any
	// 2xx. A gRPC call succeeds on grpc-status 0 alone.
	Expect  []int
	Capture []CaptureSpec
}

// GRPCStep is a setup step's unary gRPC call: the method
// ("package.Service/Method") and its request message as JSON in
// protobuf's mapping, a template.
type GRPCStep struct {
	Method  string
	Message Template
	// Metadata is the call's request metadata, values templated.
	Metadata []HeaderTemplate `json:",omitempty"`
}

// HasHTTP reports whether the step has an HTTP request.
func (s Step) HasHTTP() bool { return s.Request.Path.Source != "" }

// templates returns every template of the step: its HTTP request's and its
// gRPC message.
func (s Step) templates() []Template {
	_, ts := s.Request.Templates()
	if s.GRPC != nil {
		ts = append(ts, s.GRPC.Message)
		for _, h := range s.GRPC.Metadata {
			ts = append(ts, h.Value)
		}
	}
	return ts
}

// MethodFinder finds a gRPC method's descriptors by its name,
// "package.Service/Method".
type MethodFinder func(ctx context.Context, name string) (*grpcmsg.Method, error)

// Target is the process of a stack that setup steps are sent to.
type Target struct {
	// BaseURL is its scheme, address and port: http://127.0.0.1:8080, or
	// https://… for a stack with TLS.
	BaseURL string
	// Client sends the steps (workload.WireClient for the stack's wire);
	// nil is HTTP/1.1 in cleartext.
	Client *http.Client
	// Method finds the descriptors of the gRPC calls; set for a stack that
	// speaks gRPC (its steps are then sent as their gRPC calls), nil for
	// another.
	Method MethodFinder
}

// Close closes the idle connections of the target's client.
func (t Target) Close() {
	if t.Client != nil {
		t.Client.CloseIdleConnections()
	}
}

// CaptureSource splits a capture path into its source ("body" or
// "header") and the path within it, or says what is wrong with it.
func CaptureSource(path string) (source, rest string, err error) {
	source, rest, ok := strings.Cut(path, ".")
	if !ok || rest == "" || (source != "body" && source != "header") {
		return "", "", fmt.Errorf("capture path %q must start with body. or header., e.g. body.user.token or header.Authorization", path)
	}
	return source, rest, nil
}

// SetupOptions configure RunSetup.
type SetupOptions struct {
	// Client sends the requests; nil is a client with a 30 s timeout
	// (HTTP/1.1 in cleartext).
	Client *http.Client
	// Method, when set, sends each step as its gRPC call (the stack
	// speaks gRPC) and finds the call's descriptors.
	Method MethodFinder
	// Getenv and Lines resolve ${env:…} and ${line:…}.
	Getenv func(string) string
	Lines  map[string][]string
	// Secret names the captures whose values an error never quotes
	// (Scenario.SecretCaptures); nil: those the steps alone show to be
	// credentials.
	Secret map[string]bool
}

// responseStart is how much of a response a setup error quotes.
const responseStart = 200

// RunSetup runs the steps of scope against the stack at baseURL
// (http://host:port, or https:// with a client that trusts the stack's
// certificate), in order, and returns known with what they capture
// added. A capture of a repeated step is a list, one value per iteration;
// a body capture that finds a JSON array is a list of its elements. A step
// that fails (no answer, an unexpected status, a capture that finds
// nothing) is an error naming the step.
func RunSetup(ctx context.Context, baseURL string, steps []Step, scope Scope, known map[string][]string, o SetupOptions) (map[string][]string, error) {
	if o.Client == nil {
		// A redirect is answered, not followed: on 307 and 308 Go would send
		// the step's body and headers (a password, a key) to wherever it
		// points.
		o.Client = &http.Client{Timeout: 30 * time.Second, CheckRedirect: netutil.NoRedirects}
		defer o.Client.CloseIdleConnections()
	}
	vals := Values{Captures: map[string][]string{}, Getenv: o.Getenv, Lines: o.Lines}
	for k, v := range known {
		vals.Captures[k] = v
	}
	for _, s := range steps {
		if s.Scope != scope {
			continue
		}
		if err := runStep(ctx, o, baseURL, s, &vals); err != nil {
			return nil, fmt.Errorf("setup step %s: %s", s.Name, setupSecrets(steps, vals, o).Redact(err.Error()))
		}
	}
	return vals.Captures, nil
}

// setupSecrets are the values a setup error must not quote: the ${env:…}
// values the steps use and what was captured so far.
func setupSecrets(steps []Step, vals Values, o SetupOptions) workload.Secrets {
	var out workload.Secrets
	secret := o.Secret
	if secret == nil {
		secret = (&Scenario{Steps: steps}).SecretCaptures()
	}
	for name, vs := range vals.Captures {
		if secret[name] {
			out = out.Add(vs...)
		}
	}
	if o.Getenv == nil {
		return out
	}
	for _, s := range steps {
		for _, t := range s.templates() {
			for _, p := range t.Refs() {
				if p.Kind == Env {
					out = out.Add(o.Getenv(p.Text))
				}
			}
		}
	}
	return out
}

// runStep sends one step (every iteration) and records its captures.
func runStep(ctx context.Context, o SetupOptions, baseURL string, s Step, vals *Values) error {
	n := max(1, s.Repeat)
	got := map[string][]string{}
	rng := NewRand("setup/" + s.Name)
	for i := 1; i <= n; i++ {
		v := *vals
		at := ""
		if s.Repeat > 0 {
			v.Index = i
			at = fmt.Sprintf(" (i=%d)", i)
		}
		var header http.Header
		var body []byte
		var err error
		if o.Method != nil {
			header, body, err = callStep(ctx, o, baseURL, s, i-1, v, rng, at)
		} else {
			header, body, err = sendStep(ctx, o.Client, baseURL, s, i-1, v, rng, at)
		}
		if err != nil {
			return err
		}
		for _, c := range s.Capture {
			values, err := capture(c, header, body)
			if err != nil {
				return fmt.Errorf("%s%s: %w", c.Name, at, err)
			}
			if s.Repeat > 1 && len(values) == 1 {
				got[c.Name] = append(got[c.Name], values[0])
			} else {
				got[c.Name] = values
			}
		}
	}
	for k, v := range got {
		vals.Captures[k] = v
	}
	return nil
}

// sendStep sends iteration k of an HTTP step and returns its answer's
// headers and body, or an error when it gets none or an unexpected status.
func sendStep(ctx context.Context, client *http.Client, baseURL string, s Step, k int, v Values, rng *rand.Rand, at string) (http.Header, []byte, error) {
	if !s.HasHTTP() {
		return nil, nil, fmt.Errorf("the step is only a gRPC call, and the stack does not speak gRPC; add path: (and method:, body:) to the step")
	}
	req, err := s.Request.render(k, v, rng)
	if err != nil {
		return nil, nil, err
	}
	status, header, body, err := send(ctx, client, baseURL, req.Method, req.Path, req.Header, req.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s%s: no answer: %v", req.Method, req.Path, at, err)
	}
	if !expected(s.Expect, status) {
		return nil, nil, fmt.Errorf("%s %s%s answered %d, want %s: %s%s", req.Method, req.Path, at, status, statusText(s.Expect), start(body), workload.RedirectNote(status, header))
	}
	return header, body, nil
}

// callStep makes iteration k of a step's gRPC call and returns its
// answer's metadata and message as JSON, or an error when it gets no
// answer or a grpc-status other than OK.
func callStep(ctx context.Context, o SetupOptions, baseURL string, s Step, k int, v Values, rng *rand.Rand, at string) (http.Header, []byte, error) {
	if s.GRPC == nil {
		return nil, nil, fmt.Errorf("the stack speaks gRPC and the step is an HTTP request; write it as a gRPC call too: grpc: {method: package.Service/Method, message: '{...}'}")
	}
	msg, err := renderOne(s.GRPC.Message, k, v, rng)
	if err != nil {
		return nil, nil, err
	}
	md, err := renderMetadata(s.GRPC.Metadata, k, v, rng)
	if err != nil {
		return nil, nil, err
	}
	m, err := o.Method(ctx, s.GRPC.Method)
	if err != nil {
		return nil, nil, fmt.Errorf("gRPC %s: the method's descriptors: %w", s.GRPC.Method, err)
	}
	a, err := workload.CallGRPC(ctx, o.Client, baseURL, m, msg, md)
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("gRPC %s%s: no answer: %v", s.GRPC.Method, at, err)
	case a.HTTPStatus != http.StatusOK:
		return nil, nil, fmt.Errorf("gRPC %s%s answered HTTP %d, not a gRPC answer: %s", s.GRPC.Method, at, a.HTTPStatus, start(a.Body))
	case a.Code != 0:
		return nil, nil, fmt.Errorf("gRPC %s%s answered grpc-status %d (%s), want 0 (OK)", s.GRPC.Method, at, a.Code, a.Text)
	}
	return a.Header, a.Body, nil
}

// capture reads one capture from a response.
func capture(c CaptureSpec, header http.Header, body []byte) ([]string, error) {
	source, path, err := CaptureSource(c.Path)
	if err != nil {
		return nil, err
	}
	if source == "header" {
		v := header.Values(path)
		if len(v) == 0 {
			return nil, fmt.Errorf("capture %s found no header %s in the response (headers: %s)", c.Path, path, headerNames(header))
		}
		return v[:1], nil
	}
	if !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("capture %s: the body is not JSON: %s", c.Path, start(body))
	}
	r := gjson.GetBytes(body, path)
	if !r.Exists() || r.Type == gjson.Null {
		return nil, fmt.Errorf("capture %s found nothing in the body: %s", c.Path, start(body))
	}
	if r.IsArray() {
		var out []string
		for _, e := range r.Array() {
			out = append(out, e.String())
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("capture %s found an empty list in the body: %s", c.Path, start(body))
		}
		return out, nil
	}
	return []string{r.String()}, nil
}

// send makes one request and reads its answer.
func send(ctx context.Context, client *http.Client, baseURL, method, path string, header []workload.Header, body []byte) (int, http.Header, []byte, error) {
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, baseURL+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	for _, h := range header {
		req.Header.Set(h.Name, h.Value)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, resp.Header, b, err
}

func expected(want []int, status int) bool {
	if len(want) == 0 {
		return status >= 200 && status < 300
	}
	return slices.Contains(want, status)
}

func statusText(want []int) string {
	if len(want) == 0 {
		return "a 2xx status"
	}
	s := make([]string, len(want))
	for i, w := range want {
		s[i] = strconv.Itoa(w)
	}
	return strings.Join(s, " or ")
}

// start quotes the beginning of a response body.
func start(body []byte) string {
	if len(body) == 0 {
		return "(empty body)"
	}
	if len(body) > responseStart {
		return strconv.Quote(string(body[:responseStart])) + "…"
	}
	return strconv.Quote(string(body))
}

func headerNames(h http.Header) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
