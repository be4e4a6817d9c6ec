package scenario

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/workload"
)

// Bounds on a case's variants: they are all encoded before the window, so
// their number and size are held in memory by the generator.
const (
	MaxVariants = 10_000
	MaxBytes    = 64 << 20
	// RandVariants is how many variants a case gets when its only varying
	// references are ${rand:…} draws (no list sets the number).
	RandVariants = 1_000
)

// Seed is the generator's seed for ${rand:…}: the same for every stack and
// every run, mixed with the case's name so two cases draw apart.
const Seed uint64 = 0x5eed_5eed

// HeaderTemplate is one request header whose value is a template.
type HeaderTemplate struct {
	Name  string
	Value Template
}

// Request is a templated request: the method is fixed; the path, header
// values and body may hold references.
type Request struct {
	Method string
	Path   Template
	Header []HeaderTemplate
	Body   Template
}

// ParseRequest parses the templates of a workload request. An error is an
// *FieldError naming the field at fault ("path", "body" or the header).
func ParseRequest(method, path string, header []workload.Header, body []byte) (Request, error) {
	r := Request{Method: method}
	var err error
	if r.Path, err = Parse(path); err != nil {
		return r, &FieldError{Field: "path", Err: err.(*Error)}
	}
	for _, h := range header {
		v, err := Parse(h.Value)
		if err != nil {
			return r, &FieldError{Field: "headers." + h.Name, Err: err.(*Error)}
		}
		r.Header = append(r.Header, HeaderTemplate{Name: h.Name, Value: v})
	}
	if r.Body, err = Parse(string(body)); err != nil {
		return r, &FieldError{Field: "body", Err: err.(*Error)}
	}
	return r, nil
}

// FieldError is a template problem in one field of a request.
type FieldError struct {
	Field string
	Err   *Error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Msg }

// Templates returns every template of r with the field it belongs to.
func (r Request) Templates() (fields []string, ts []Template) {
	fields, ts = append(fields, "path"), append(ts, r.Path)
	for _, h := range r.Header {
		fields, ts = append(fields, "headers."+h.Name), append(ts, h.Value)
	}
	return append(fields, "body"), append(ts, r.Body)
}

// Fixed reports whether r has no reference at all.
func (r Request) Fixed() bool {
	_, ts := r.Templates()
	for _, t := range ts {
		if !t.Fixed() {
			return false
		}
	}
	return true
}

// Values is what references resolve to.
type Values struct {
	// Captures holds the setup steps' captures: one value, or a list that
	// requests cycle over.
	Captures map[string][]string
	// Getenv reads ${env:NAME}; nil reads nothing.
	Getenv func(string) string
	// Lines holds the lines of each ${line:FILE}, by the file as written.
	Lines map[string][]string
	// Index is ${i}: the iteration of a repeated setup step, 0 elsewhere.
	Index int
}

// list returns the values a reference cycles over, or nil for ${rand} and
// ${i} (drawn or given per request).
func (v Values) list(p Part) ([]string, error) {
	switch p.Kind {
	case Capture:
		vals, ok := v.Captures[p.Text]
		if !ok {
			return nil, fmt.Errorf("${%s} is not captured by any setup step run before it", p.Text)
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("${%s} is an empty list: its setup step captured no value", p.Text)
		}
		return vals, nil
	case Env:
		var s string
		if v.Getenv != nil {
			s = v.Getenv(p.Text)
		}
		return []string{s}, nil
	case Line:
		lines, ok := v.Lines[p.Text]
		if !ok || len(lines) == 0 {
			return nil, fmt.Errorf("${line:%s}: the file has no line", p.Text)
		}
		return lines, nil
	}
	return nil, nil
}

// Count returns how many variants r expands to with v: the longest list it
// refers to, RandVariants when it only draws, 1 when nothing varies.
func (r Request) Count(v Values) (int, error) {
	n, draws := 1, false
	_, ts := r.Templates()
	for _, t := range ts {
		for _, p := range t.Refs() {
			if p.Kind == Rand && p.Min < p.Max {
				draws = true
			}
			vals, err := v.list(p)
			if err != nil {
				return 0, err
			}
			n = max(n, len(vals))
		}
	}
	if draws {
		n = max(n, RandVariants)
	}
	return n, nil
}

// Expand renders r's variants for one case: variant k takes the k-th value
// (cycled) of every list and fresh draws for every ${rand}, from a
// generator seeded with Seed and the case's name, so every stack gets the
// same sequence. It refuses more than MaxVariants variants or MaxBytes in
// all, and a variant that could not be sent as written (a path that does
// not start with "/" or holds a space or control character, a header
// value with a line break), before any load.
func (r Request) Expand(caseName string, v Values) ([]workload.Request, error) {
	n, err := r.Count(v)
	if err != nil {
		return nil, err
	}
	if n > MaxVariants {
		return nil, fmt.Errorf("%d variants; at most %d are encoded before a window: shorten the list (a capture's repeat, the lines of a file)", n, MaxVariants)
	}
	rng := NewRand(caseName)
	out := make([]workload.Request, 0, n)
	total := 0
	for k := range n {
		req, err := r.render(k, v, rng)
		if err != nil {
			return nil, fmt.Errorf("variant %d: %w", k+1, err)
		}
		total += len(req.Method) + len(req.Path) + len(req.Body)
		for _, h := range req.Header {
			total += len(h.Name) + len(h.Value) + 4
		}
		if total > MaxBytes {
			return nil, fmt.Errorf("the variants pass %d MiB at variant %d of %d; at most %d MiB are encoded before a window: send smaller bodies or fewer variants", MaxBytes>>20, k+1, n, MaxBytes>>20)
		}
		out = append(out, req)
	}
	return out, nil
}

// ExpandCall renders a gRPC call's variants for one case — its message
// and its metadata's values, templates both — as Expand renders a
// request's: as many as its longest list (or RandVariants when it only
// draws), ${rand} drawn from the case's seeded generator, the message's
// draws first. The JSON of each message is checked by whoever encodes it.
func ExpandCall(caseName, method string, message Template, metadata []HeaderTemplate, v Values) ([]workload.GRPCCall, error) {
	n, err := Request{Header: metadata, Body: message}.Count(v)
	if err != nil {
		return nil, err
	}
	if n > MaxVariants {
		return nil, fmt.Errorf("%d variants; at most %d are encoded before a window: shorten the list (the lines of a file)", n, MaxVariants)
	}
	rng := NewRand(caseName)
	out := make([]workload.GRPCCall, 0, n)
	total := 0
	for k := range n {
		msg, err := renderOne(message, k, v, rng)
		if err != nil {
			return nil, fmt.Errorf("variant %d: %w", k+1, err)
		}
		md, err := renderMetadata(metadata, k, v, rng)
		if err != nil {
			return nil, fmt.Errorf("variant %d: %w", k+1, err)
		}
		total += len(msg)
		for _, h := range md {
			total += len(h.Name) + len(h.Value)
		}
		if total > MaxBytes {
			return nil, fmt.Errorf("the variants pass %d MiB at variant %d of %d; send smaller messages or fewer variants", MaxBytes>>20, k+1, n)
		}
		out = append(out, workload.GRPCCall{Method: method, Message: msg, Metadata: md})
	}
	return out, nil
}

// renderMetadata renders variant k of a gRPC call's metadata.
func renderMetadata(metadata []HeaderTemplate, k int, v Values, rng *rand.Rand) ([]workload.Header, error) {
	var out []workload.Header
	for _, h := range metadata {
		val, err := renderOne(h.Value, k, v, rng)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(val, "\r\n") {
			return nil, fmt.Errorf("metadata %s: the value %q holds a line break", h.Name, cut(val))
		}
		out = append(out, workload.Header{Name: h.Name, Value: val})
	}
	return out, nil
}

// NewRand returns the seeded generator of a case's (or a setup step's)
// ${rand} draws.
func NewRand(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(Seed, h.Sum64()))
}

// render builds variant k.
func (r Request) render(k int, v Values, rng *rand.Rand) (workload.Request, error) {
	path, err := renderOne(r.Path, k, v, rng)
	if err != nil {
		return workload.Request{}, err
	}
	if err := checkPath(path); err != nil {
		return workload.Request{}, err
	}
	req := workload.Request{Method: r.Method, Path: path}
	for _, h := range r.Header {
		val, err := renderOne(h.Value, k, v, rng)
		if err != nil {
			return req, err
		}
		if strings.ContainsAny(val, "\r\n") {
			return req, fmt.Errorf("header %s: the value %q holds a line break", h.Name, cut(val))
		}
		req.Header = append(req.Header, workload.Header{Name: h.Name, Value: val})
	}
	body, err := renderOne(r.Body, k, v, rng)
	if err != nil {
		return req, err
	}
	if body != "" {
		req.Body = []byte(body)
	}
	return req, nil
}

// renderOne renders template t as variant k.
func renderOne(t Template, k int, v Values, rng *rand.Rand) (string, error) {
	if t.Fixed() {
		return t.Source, nil
	}
	var b strings.Builder
	for _, p := range t.Parts {
		switch p.Kind {
		case Literal:
			b.WriteString(p.Text)
		case Index:
			if v.Index == 0 {
				return "", fmt.Errorf("${i} is only defined in a setup step with repeat")
			}
			b.WriteString(strconv.Itoa(v.Index))
		case Rand:
			b.WriteString(strconv.Itoa(p.Min + rng.IntN(p.Max-p.Min+1)))
		default:
			vals, err := v.list(p)
			if err != nil {
				return "", err
			}
			b.WriteString(vals[k%len(vals)])
		}
	}
	return b.String(), nil
}

// checkPath refuses a path the request line cannot carry.
func checkPath(path string) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("path %q does not start with /", cut(path))
	}
	for i := range len(path) {
		if c := path[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("path %q holds a space or control character at byte %d; put a URL-encoded value in the template (%%20 for a space)", cut(path), i)
		}
	}
	return nil
}

// cut shortens s for a message.
func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
