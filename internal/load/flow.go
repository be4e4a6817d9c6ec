package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Flow is a sequence of requests one virtual user makes, again and again
// (log in → list → read → write): each connection of the run (over HTTP/2,
// each stream of a connection) is one user, sending a step when the
// previous one answered (and its think time passed). In a closed loop a user starts its flow again when it ends; in
// an open loop (Config.Rate) flows start on a fixed schedule, Rate a
// second, each on a free user, and a flow's latency counts from its
// scheduled start. A step's path, header values and body may hold
// ${name}, a value an earlier step of the same flow captured for this user,
// and ${rand:A..B}, a whole number drawn per request from the user's own
// generator (seeded by Config.Seed and the user's number). A flow
// completes when its last step succeeds; it fails at its first step that
// fails (an unexpected status, a transport error, a capture that finds
// nothing), with that step's class, and the user starts the flow again.
type Flow struct {
	Name  string     `json:"name"`
	Steps []FlowStep `json:"steps"`
}

// FlowStep is one request of a flow.
type FlowStep struct {
	Name    string            `json:"name"`
	Method  string            `json:"method,omitempty"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	// Expect lists the statuses that count as success (default any 2xx).
	Expect []int `json:"expect,omitempty"`
	// Capture names values to take from the answer: "body.<gjson path>"
	// (a JSON array found is a list: each user takes its own element,
	// moving on each time it runs the flow) or "header.<Name>".
	Capture map[string]string `json:"capture,omitempty"`
	// ThinkMillis is how long the user waits after this step succeeds
	// before the next one (at the engine's scan granularity, up to 10 ms).
	ThinkMillis int `json:"think_ms,omitempty"`
}

// Bounds of a flow.
const (
	MaxFlowSteps = 64
	maxThink     = time.Minute
)

// compiledFlow is a flow ready for the engine: its steps' templates
// parsed, its captures numbered.
type compiledFlow struct {
	name  string
	steps []compiledStep
	slots int // captured names
}

type compiledStep struct {
	name, method string
	path, body   []tpart
	headers      []compiledHeader
	success      [1000]bool
	head         bool
	captures     []compiledCapture
	think        int64 // ns
	// host is the index in headers of the step's own Host header (sent
	// as Host, or over HTTP/2 as :authority, instead of the target's),
	// -1 without one; ownUA says the step sets its own User-Agent (else
	// "stackbench" is sent), as for a case (encode.go).
	host  int
	ownUA bool
}

type compiledHeader struct {
	name  string
	value []tpart
	// h2name is the name HTTP/2 sends (lower case); "" for a header
	// HTTP/2 does not carry as a field (connection-specific, Host, which
	// becomes :authority, and Content-Length, computed from the body).
	h2name string
}

type compiledCapture struct {
	slot   int
	header string // "header.<Name>": the name; else a body path
	path   string
}

// tpart is a piece of a step's template: literal text, a captured value
// (slot), or a draw from lo to hi.
type tpart struct {
	kind   uint8
	text   string
	slot   int
	lo, hi int64
}

const (
	tLiteral uint8 = iota
	tCapture
	tRand
)

// compileFlow checks a flow and parses its templates: a name used must be
// captured by an earlier step.
func compileFlow(f *Flow) (*compiledFlow, error) {
	if len(f.Steps) == 0 || len(f.Steps) > MaxFlowSteps {
		return nil, configErrorf("flow", "flow %q has %d steps; give it 1 to %d", f.Name, len(f.Steps), MaxFlowSteps)
	}
	cf := &compiledFlow{name: f.Name}
	slots := map[string]int{}
	seen := map[string]bool{}
	for i, st := range f.Steps {
		field := fmt.Sprintf("flow.steps[%d]", i)
		if st.Name == "" || !routeName.MatchString(st.Name) || seen[st.Name] {
			return nil, configErrorf(field, "step name %q: give each step its own name (letters, digits, '.', '_', '-')", st.Name)
		}
		seen[st.Name] = true
		cs := compiledStep{name: st.Name, method: st.Method, think: int64(time.Duration(st.ThinkMillis) * time.Millisecond)}
		if cs.method == "" {
			cs.method = "GET"
		}
		if st.ThinkMillis < 0 || time.Duration(st.ThinkMillis)*time.Millisecond > maxThink {
			return nil, configErrorf(field, "step %s: think_ms %d; want 0 to %d", st.Name, st.ThinkMillis, maxThink.Milliseconds())
		}
		if err := checkRequest(Request{Method: cs.method, Path: strings.ReplaceAll(st.Path, " ", "")}); err != nil {
			return nil, configErrorf(field, "step %s: %v", st.Name, err)
		}
		cs.head = cs.method == "HEAD"
		var err error
		if cs.path, err = compileTemplate(st.Path, slots); err != nil {
			return nil, configErrorf(field, "step %s: path: %v", st.Name, err)
		}
		if cs.body, err = compileTemplate(st.Body, slots); err != nil {
			return nil, configErrorf(field, "step %s: body: %v", st.Name, err)
		}
		for _, name := range sortedNames(st.Headers) {
			if err := checkHeader(name, strings.ReplaceAll(st.Headers[name], "${", "")); err != nil {
				return nil, configErrorf(field, "step %s: %v", st.Name, err)
			}
			v, err := compileTemplate(st.Headers[name], slots)
			if err != nil {
				return nil, configErrorf(field, "step %s: header %s: %v", st.Name, name, err)
			}
			cs.headers = append(cs.headers, compiledHeader{name: name, value: v, h2name: h2FieldName(name, v)})
		}
		cs.host = slices.IndexFunc(cs.headers, func(h compiledHeader) bool { return strings.EqualFold(h.name, "Host") })
		cs.ownUA = slices.ContainsFunc(cs.headers, func(h compiledHeader) bool { return strings.EqualFold(h.name, "User-Agent") })
		if len(st.Expect) == 0 {
			for s := 200; s < 300; s++ {
				cs.success[s] = true
			}
		}
		for _, s := range st.Expect {
			if s < 100 || s > 999 {
				return nil, configErrorf(field, "step %s: expect %d is not an HTTP status", st.Name, s)
			}
			cs.success[s] = true
		}
		for _, name := range sortedNames(st.Capture) {
			src := st.Capture[name]
			cc := compiledCapture{}
			switch {
			case strings.HasPrefix(src, "header.") && len(src) > len("header."):
				// Lower case: headerValue compares with a lower-case name
				// (HTTP/2's names are lower case already).
				cc.header = strings.ToLower(src[len("header."):])
			case strings.HasPrefix(src, "body.") && len(src) > len("body."):
				cc.path = src[len("body."):]
			default:
				return nil, configErrorf(field, "step %s: capture %s: %q is not body.<path> or header.<Name>", st.Name, name, src)
			}
			if _, ok := slots[name]; !ok {
				slots[name] = len(slots)
			}
			cc.slot = slots[name]
			cs.captures = append(cs.captures, cc)
		}
		cf.steps = append(cf.steps, cs)
	}
	cf.slots = len(slots)
	return cf, nil
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// compileTemplate parses ${name}, ${rand:A..B} and $${ (a literal "${")
// in s; a name must be in slots already (captured by an earlier step).
func compileTemplate(s string, slots map[string]int) ([]tpart, error) {
	var out []tpart
	lit := func(t string) {
		if t == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].kind == tLiteral {
			out[n-1].text += t
			return
		}
		out = append(out, tpart{kind: tLiteral, text: t})
	}
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			lit(s)
			return out, nil
		}
		if i > 0 && s[i-1] == '$' {
			lit(s[:i-1] + "${")
			s = s[i+2:]
			continue
		}
		lit(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%q has ${ without its closing }", s)
		}
		ref := s[i+2 : i+end]
		s = s[i+end+1:]
		if r, ok := strings.CutPrefix(ref, "rand:"); ok {
			a, b, ok := strings.Cut(r, "..")
			lo, err1 := strconv.ParseInt(a, 10, 64)
			hi, err2 := strconv.ParseInt(b, 10, 64)
			if !ok || err1 != nil || err2 != nil || hi < lo {
				return nil, fmt.Errorf("${%s}: write ${rand:A..B} with whole numbers A ≤ B", ref)
			}
			out = append(out, tpart{kind: tRand, lo: lo, hi: hi})
			continue
		}
		slot, ok := slots[ref]
		if !ok {
			return nil, fmt.Errorf("${%s} is not captured by an earlier step of the flow; add capture: {%s: body.<path>} to one", ref, ref)
		}
		out = append(out, tpart{kind: tCapture, slot: slot})
	}
}

// flowState is one user's place in its flow: the step it is on, what it
// captured, when this run of the flow started, and its request's bytes
// (rebuilt for each step, in a buffer it keeps).
type flowState struct {
	step  int
	vars  [][]byte
	start int64
	// runs counts the user's runs of the flow (a list capture's element).
	runs       int64
	user       int64
	thinkUntil int64
	rng        rand.PCG
	buf, body  []byte
	wire       wireRequest
	// block is the step's HTTP/2 header block (renderH2).
	block []byte
}

// render builds the user's request for step s into its buffers.
func (f *flowState) render(s *compiledStep, host string) {
	f.body = f.appendParts(f.body[:0], s.body)
	b := append(f.buf[:0], s.method...)
	b = append(b, ' ')
	b = f.appendParts(b, s.path)
	b = append(b, " HTTP/1.1\r\n"...)
	if s.host < 0 {
		b = append(b, "Host: "...)
		b = append(b, host...)
		b = append(b, "\r\n"...)
	}
	if !s.ownUA {
		b = append(b, "User-Agent: stackbench\r\n"...)
	}
	for _, h := range s.headers {
		if strings.EqualFold(h.name, "Content-Length") {
			continue
		}
		b = append(b, h.name...)
		b = append(b, ": "...)
		b = f.appendParts(b, h.value)
		b = append(b, "\r\n"...)
	}
	if len(f.body) > 0 || s.method == "POST" || s.method == "PUT" || s.method == "PATCH" {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(f.body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, f.body...)
	f.buf = b
	f.wire.bytes, f.wire.head, f.wire.success = b, s.head, &s.success
}

func (f *flowState) appendParts(b []byte, parts []tpart) []byte {
	for _, p := range parts {
		switch p.kind {
		case tLiteral:
			b = append(b, p.text...)
		case tCapture:
			b = append(b, f.vars[p.slot]...)
		case tRand:
			span := uint64(p.hi - p.lo + 1)
			v := p.lo
			if span != 0 {
				v += int64(f.rng.Uint64() % span)
			}
			b = strconv.AppendInt(b, v, 10)
		}
	}
	return b
}

// maxFlowFileBytes bounds a flow file.
const maxFlowFileBytes = 1 << 20

// ReadFlow reads a flow from a JSON file ({"name": …, "steps": [{"name",
// "method", "path", "headers", "body", "expect", "capture", "think_ms"}]});
// unknown keys are errors. Its templates are checked when a run starts.
func ReadFlow(path string) (*Flow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > maxFlowFileBytes {
		return nil, fmt.Errorf("%d bytes; a flow file is at most %d", len(data), maxFlowFileBytes)
	}
	var f Flow
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a flow: %v (write {\"name\": \"session\", \"steps\": [{\"name\": \"login\", \"path\": \"/login\", …}]})", err)
	}
	if _, err := compileFlow(&f); err != nil {
		return nil, err
	}
	return &f, nil
}
