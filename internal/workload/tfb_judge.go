package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// TFBRule is how a tfb check judges its answer: TechEmpower's verifier's
// rules for the test type Kind, stricter where noted in docs/workloads.md.
type TFBRule struct {
	// Kind is the test type (a tfb case name).
	Kind string `json:"kind"`
	// Rows is the number of World objects the answer must hold (queries,
	// updates, cached-queries).
	Rows int `json:"rows,omitempty"`
	// Statements is true when the check counts the statements the request
	// caused (pg_stat_statements): one read per row, never one IN query.
	Statements bool `json:"statements,omitempty"`
}

// describe says what the rule expects, for a finding's "expected" line.
func (t TFBRule) describe() string {
	var s string
	switch t.Kind {
	case TFBJSON:
		s = `{"message":"Hello, World!"} as application/json`
	case TFBDB:
		s = `one {"id":1…10000,"randomNumber":1…10000} as application/json`
	case TFBQueries, TFBCachedQueries:
		s = fmt.Sprintf(`an array of %d {"id","randomNumber"} objects as application/json`, t.Rows)
	case TFBUpdates:
		s = fmt.Sprintf(`an array of %d {"id","randomNumber"} objects, each written to World`, t.Rows)
	case TFBFortunes:
		s = "the 12 fortunes and the one added at request time, escaped and sorted by message, as text/html; charset=utf-8"
	case TFBPlaintext:
		s = `"Hello, World!" as text/plain`
	}
	s += ", with Server, Date, Content-Type and a length or chunking"
	if t.Statements {
		s += fmt.Sprintf("; %d single-row reads of World", t.Rows)
	}
	return s
}

// violation is one broken rule: its name (tfb.…) and what showed it.
type violation struct{ rule, detail string }

func (v violation) String() string { return "rule " + v.rule + ": " + v.detail }

// wireFacts are what a tfb check looks at besides status and body.
type wireFacts struct {
	header        http.Header
	contentLength int64
	chunked       bool
}

// judgeTFB returns every rule the answer breaks, joined, or "".
func (r *runner) judgeTFB(t TFBRule, cr *CheckResult) string {
	var vs []violation
	add := func(rule, format string, a ...any) { vs = append(vs, violation{rule, fmt.Sprintf(format, a...)}) }
	wantType := map[string]string{TFBFortunes: "text/html", TFBPlaintext: "text/plain"}[t.Kind]
	if wantType == "" {
		wantType = "application/json"
	}
	tfbHeaders(cr.wire, wantType, add)
	switch t.Kind {
	case TFBJSON:
		tfbMessage(cr.Body, add)
	case TFBPlaintext:
		if string(cr.Body) != "Hello, World!" {
			add("tfb.plaintext-body", "body %q, want exactly \"Hello, World!\"", truncate(string(cr.Body), findingBodyBytes))
		}
	case TFBDB:
		if w, ok := tfbWorldObject(cr.Body, add); ok {
			r.tfbMatchesDatabase([]world{w}, add)
		}
	case TFBQueries, TFBCachedQueries, TFBUpdates:
		// Statements first: reading World back is a statement too.
		if t.Statements {
			if note := r.tfbStatements(t, add); note != "" {
				cr.Got += " [" + note + "]"
			}
		}
		worlds, ok := tfbWorldArray(cr.Body, t.Rows, add)
		if ok && t.Kind == TFBUpdates {
			r.tfbPersisted(worlds, add)
		} else if ok && t.Kind == TFBQueries {
			r.tfbMatchesDatabase(worlds, add)
		}
	case TFBFortunes:
		tfbFortunes(cr.Body, cr.wire.header.Get("Content-Type"), add)
	}
	vs = r.splitRelaxed(vs, cr)
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

// tfbHeaders checks the headers every TFB answer carries.
func tfbHeaders(w wireFacts, wantType string, add func(rule, format string, a ...any)) {
	if strings.TrimSpace(w.header.Get("Server")) == "" {
		add("tfb.header-server", "no Server header")
	}
	if d := w.header.Get("Date"); d == "" {
		add("tfb.header-date", "no Date header")
	} else if _, err := http.ParseTime(d); err != nil {
		add("tfb.header-date", "Date %q is not an HTTP date", d)
	}
	ct := w.header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != wantType {
		add("tfb.header-content-type", "Content-Type %q, want %s", ct, wantType)
	}
	if w.contentLength < 0 && !w.chunked {
		add("tfb.header-length", "neither Content-Length nor Transfer-Encoding: chunked")
	}
}

// tfbMessage checks the json test's object: one key, message (any case),
// "Hello, World!".
func tfbMessage(body []byte, add func(rule, format string, a ...any)) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		add("tfb.json-object", "body is not a JSON object: %v", err)
		return
	}
	var msg string
	found := false
	for k, v := range m {
		if strings.EqualFold(k, "message") {
			found = json.Unmarshal(v, &msg) == nil
		}
	}
	switch {
	case !found:
		add("tfb.json-object", "no string key \"message\" (any case)")
	case msg != "Hello, World!":
		add("tfb.json-object", "message %q, want \"Hello, World!\"", msg)
	case len(m) != 1:
		add("tfb.json-object", "%d keys, want only message", len(m))
	}
}

// world is one World object as a stack answered it.
type world struct{ ID, RandomNumber int64 }

// tfbWorldObject reads one World object: keys id and randomNumber (any
// case) and no others, integers in 1…10,000.
func tfbWorldObject(raw []byte, add func(rule, format string, a ...any)) (world, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		add("tfb.world-object", "%s is not a JSON object", truncate(string(raw), 60))
		return world{}, false
	}
	var w world
	seen := 0
	keys := map[string]string{} // lower case → as answered
	for k := range m {
		if other, dup := keys[strings.ToLower(k)]; dup {
			a, b := min(k, other), max(k, other)
			add("tfb.world-object", "keys %q and %q are one field (keys are case-insensitive), answered twice with %s and %s in %s",
				a, b, truncate(string(m[a]), 12), truncate(string(m[b]), 12), truncate(string(raw), 80))
			return world{}, false
		}
		keys[strings.ToLower(k)] = k
	}
	for k, v := range m {
		var dst *int64
		switch strings.ToLower(k) {
		case "id":
			dst = &w.ID
		case "randomnumber":
			dst = &w.RandomNumber
		default:
			add("tfb.world-object", "unexpected key %q in %s", k, truncate(string(raw), 60))
			return world{}, false
		}
		if err := json.Unmarshal(v, dst); err != nil {
			add("tfb.world-object", "%s is %s, want an integer", k, truncate(string(v), 30))
			return world{}, false
		}
		seen++
	}
	if seen != 2 {
		add("tfb.world-object", "%s lacks id or randomNumber", truncate(string(raw), 60))
		return world{}, false
	}
	const maxID = 10000
	if w.ID < 1 || w.ID > maxID || w.RandomNumber < 1 || w.RandomNumber > maxID {
		add("tfb.world-range", "id %d, randomNumber %d: both must be in 1…%d", w.ID, w.RandomNumber, maxID)
		return world{}, false
	}
	return w, true
}

// tfbWorldArray reads an array of rows World objects.
func tfbWorldArray(body []byte, rows int, add func(rule, format string, a ...any)) ([]world, bool) {
	var items []json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(body), &items); err != nil {
		add("tfb.world-array", "body is not a JSON array: %s", truncate(string(body), 60))
		return nil, false
	}
	if len(items) != rows {
		add("tfb.queries-count", "%d objects, want %d (counts below 1 or not a number answer 1, above 500 answer 500)", len(items), rows)
		return nil, false
	}
	out := make([]world, 0, len(items))
	for _, it := range items {
		w, ok := tfbWorldObject(it, add)
		if !ok {
			return nil, false
		}
		out = append(out, w)
	}
	return out, true
}
