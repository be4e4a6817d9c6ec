package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Compare modes: how the parity gate holds a case's success bodies against
// the first stack's.
const (
	// CompareExact requires the same bytes (the built-in workloads).
	CompareExact = "exact"
	// CompareJSON parses both bodies and compares them structurally (key
	// order free), minus the case's ignore paths. Custom workloads' default.
	CompareJSON = "json"
	// CompareStatus compares the status and content type only.
	CompareStatus = "status"
	// CompareNone compares nothing across stacks: each stack's answer must
	// only have one of the case's expected statuses.
	CompareNone = "none"
)

// CompareModes lists the modes, for messages.
var CompareModes = []string{CompareExact, CompareJSON, CompareStatus, CompareNone}

// normalize returns body as compare mode mode holds it across stacks: the
// bytes for exact, the body minus the ignored paths for json (nil when it
// is not JSON: compared as written), nil for the others. matched lists the ignore paths that
// matched something in body.
func normalize(mode string, ignore []string, body []byte) (out []byte, matched []string, err error) {
	switch mode {
	case CompareJSON:
	case CompareStatus, CompareNone:
		return nil, nil, nil
	default:
		return body, nil, nil
	}
	if !gjson.ValidBytes(body) {
		return body, nil, nil // compared byte for byte (see Compare)
	}
	out = body
	for _, p := range ignore {
		paths := concretePaths(string(out), p)
		if len(paths) > 0 {
			matched = append(matched, p)
		}
		// Delete from the last, so the indexes of earlier array elements hold.
		for i := len(paths) - 1; i >= 0; i-- {
			if out, err = sjson.DeleteBytes(out, paths[i]); err != nil {
				return nil, nil, fmt.Errorf("ignore %s: %w", p, err)
			}
		}
	}
	return out, matched, nil
}

// concretePaths resolves a gjson-style path whose "#" segments stand for
// every element of an array ("articles.#.createdAt") into the paths of the
// values it matches in doc ("articles.0.createdAt", …).
func concretePaths(doc, path string) []string {
	segs := strings.Split(path, ".")
	i := slices.Index(segs, "#")
	if i < 0 {
		if gjson.Get(doc, path).Exists() {
			return []string{path}
		}
		return nil
	}
	prefix := strings.Join(segs[:i], ".")
	arr := gjson.Get(doc, prefix)
	if prefix == "" {
		arr = gjson.Parse(doc)
	}
	if !arr.IsArray() {
		return nil
	}
	var out []string
	for k := range len(arr.Array()) {
		p := strconv.Itoa(k)
		if prefix != "" {
			p = prefix + "." + p
		}
		if i+1 < len(segs) {
			out = append(out, concretePaths(doc, p+"."+strings.Join(segs[i+1:], "."))...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// jsonDifference compares two JSON documents structurally and describes the
// first difference (in key order), "" when they are equal.
func jsonDifference(want, got []byte) string {
	var a, b any
	if err := decodeJSON(want, &a); err != nil {
		return "the first stack's body is not JSON: " + err.Error()
	}
	if err := decodeJSON(got, &b); err != nil {
		return "the body is not JSON: " + err.Error()
	}
	return firstJSONDifference("", a, b)
}

func decodeJSON(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// firstJSONDifference walks a and b together.
func firstJSONDifference(path string, a, b any) string {
	at := path
	if at == "" {
		at = "the top level"
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("at %s, want %s but got %s", at, show(a), show(b))
		}
		keys := make([]string, 0, len(av)+len(bv))
		for k := range av {
			keys = append(keys, k)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			x, inA := av[k]
			y, inB := bv[k]
			p := join(path, k)
			switch {
			case !inB:
				return fmt.Sprintf("at %s, want %s but the key is missing", p, show(x))
			case !inA:
				return fmt.Sprintf("at %s, got %s but the first stack has no such key", p, show(y))
			}
			if d := firstJSONDifference(p, x, y); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok {
			return fmt.Sprintf("at %s, want %s but got %s", at, show(a), show(b))
		}
		for i := range min(len(av), len(bv)) {
			if d := firstJSONDifference(join(path, strconv.Itoa(i)), av[i], bv[i]); d != "" {
				return d
			}
		}
		if len(av) != len(bv) {
			return fmt.Sprintf("at %s, want %d elements but got %d", strings.TrimPrefix(path+".#", "."), len(av), len(bv))
		}
		return ""
	case json.Number:
		if bv, ok := b.(json.Number); ok && numbersEqual(av, bv) {
			return ""
		}
	default:
		if a == b {
			return ""
		}
	}
	return fmt.Sprintf("at %s, want %s but got %s", at, show(a), show(b))
}

// numbersEqual compares two JSON numbers by value (1.0 equals 1).
func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(string(a), 64)
	y, err2 := strconv.ParseFloat(string(b), 64)
	return err1 == nil && err2 == nil && x == y
}

// join appends a key to a gjson path, escaping the characters gjson reads.
func join(path, key string) string {
	var b strings.Builder
	for _, r := range key {
		if strings.ContainsRune(`.*?#|@\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	if path == "" {
		return b.String()
	}
	return path + "." + b.String()
}

// show quotes a JSON value for a message.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return truncate(string(b), 80)
}
