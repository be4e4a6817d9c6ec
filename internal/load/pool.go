package load

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ReadRequests reads a request pool: JSON lines of
// {"method","path","headers","body"}, blank lines skipped. An error names
// the line; unknown keys are errors.
func ReadRequests(r io.Reader) ([]Request, error) {
	var pool []Request
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var req Request
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, configErrorf(fmt.Sprintf("line %d", line), "not a request object: %v", err)
		}
		if dec.More() {
			return nil, configErrorf(fmt.Sprintf("line %d", line), "more than one JSON value on the line")
		}
		if err := checkRequest(req); err != nil {
			return nil, configErrorf(fmt.Sprintf("line %d", line), "%v", err)
		}
		pool = append(pool, req)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read request pool: %w", err)
	}
	if len(pool) == 0 {
		return nil, configErrorf("requests", "the pool has no request")
	}
	return pool, nil
}

// checkRequest rejects what cannot be sent as written.
func checkRequest(req Request) error {
	if req.Method == "" {
		req.Method = "GET"
	}
	if !isToken(req.Method) {
		return fmt.Errorf("method %q is not a valid HTTP method", req.Method)
	}
	if !strings.HasPrefix(req.Path, "/") || strings.ContainsAny(req.Path, " \r\n") {
		return fmt.Errorf("path %q must start with / and hold no spaces or line breaks", req.Path)
	}
	for name, value := range req.Headers {
		if err := checkHeader(name, value); err != nil {
			return err
		}
	}
	return nil
}

// ParseHeader reads one "Name: value" header.
func ParseHeader(s string) (Header, error) {
	name, value, found := strings.Cut(s, ":")
	if !found {
		return Header{}, configErrorf("header", "%q is not in the form 'Name: value'", s)
	}
	h := Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}
	if err := checkHeader(h.Name, h.Value); err != nil {
		return Header{}, configErrorf("header", "%v", err)
	}
	return h, nil
}

func checkHeader(name, value string) error {
	if !isToken(name) {
		return fmt.Errorf("header name %q is not a valid HTTP token", name)
	}
	if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("header %q: the value holds a line break", name)
	}
	return nil
}

// isToken reports whether s is a non-empty RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}
