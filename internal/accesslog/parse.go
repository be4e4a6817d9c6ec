// Package accesslog reads a web server's access log — the common or
// combined log format, or JSON lines with method, path and status — and
// summarises it as routes: requests grouped by method and path, the ids in
// paths turned into templates, counted with their statuses. `stackbench
// init --access-log` writes the top routes as a weighted mix. The log is
// outside input: every line is bounded, and a line that does not parse is
// counted and skipped, never an error.
package accesslog

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// Entry is one request of the log.
type Entry struct {
	Method string
	// Target is the request target as logged: a path, with its query.
	Target string
	Status int
}

// MaxLineBytes bounds a line; a longer one is skipped.
const MaxLineBytes = 64 << 10

// common matches the common and combined formats up to the status:
// host ident user [time] "METHOD target PROTO" status …
var common = regexp.MustCompile(`^\S+ \S+ \S+ \[[^\]]*\] "([A-Za-z]+) (\S+)(?: [^"]*)?" (\d{3})(?: |$)`)

var (
	errFormat = errors.New("neither the common or combined log format nor a JSON object")
	errFields = errors.New("a JSON line needs method, path and status")
	errTarget = errors.New("the request target is not a path starting with /")
)

// ParseLine reads one line: a JSON object when it starts with '{', the
// common or combined format otherwise.
func ParseLine(line []byte) (Entry, error) {
	line = bytes.TrimSpace(line)
	var e Entry
	if len(line) > 0 && line[0] == '{' {
		var err error
		if e, err = parseJSON(line); err != nil {
			return e, err
		}
	} else {
		m := common.FindSubmatch(line)
		if m == nil {
			return e, errFormat
		}
		e.Method, e.Target = string(m[1]), string(m[2])
		e.Status, _ = strconv.Atoi(string(m[3]))
	}
	e.Method = strings.ToUpper(e.Method)
	if full, ok := strings.CutPrefix(e.Target, "http://"); ok {
		e.Target = pathOf(full)
	} else if full, ok := strings.CutPrefix(e.Target, "https://"); ok {
		e.Target = pathOf(full)
	}
	if !strings.HasPrefix(e.Target, "/") || strings.ContainsAny(e.Target, " \r\n\t") || e.Status < 100 || e.Status > 599 {
		return e, errTarget
	}
	return e, nil
}

// pathOf is the path and query of an absolute URL without its scheme.
func pathOf(hostAndPath string) string {
	if i := strings.IndexByte(hostAndPath, '/'); i >= 0 {
		return hostAndPath[i:]
	}
	return "/"
}

// parseJSON reads a JSON line: method, path (or uri, url) and status (a
// number or a string of one).
func parseJSON(line []byte) (Entry, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Entry{}, errFormat
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if v, ok := raw[k]; ok && json.Unmarshal(v, &s) == nil {
				return s
			}
		}
		return ""
	}
	e := Entry{Method: str("method"), Target: str("path", "uri", "url")}
	if v, ok := raw["status"]; ok {
		if json.Unmarshal(v, &e.Status) != nil {
			var s string
			if json.Unmarshal(v, &s) == nil {
				e.Status, _ = strconv.Atoi(s)
			}
		}
	}
	if e.Method == "" || e.Target == "" || e.Status == 0 {
		return e, errFields
	}
	return e, nil
}
