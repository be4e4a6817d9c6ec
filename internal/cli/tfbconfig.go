package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// tfbConfig is a TechEmpower Framework Benchmarks entry's
// benchmark_config.json: its framework and its variants, in file order.
type tfbConfig struct {
	Framework string
	Variants  []tfbVariant
}

// tfbVariant is one test of an entry ("default", "postgres", …): its URLs
// by test type, port and the metadata TFB's results show.
type tfbVariant struct {
	Name string
	// URLs maps a tfb case name (json, db, …) to the variant's path for
	// it; a counted case's path ends in its parameter ("?queries=").
	URLs           map[string]string
	Port           int
	Approach       string // Realistic or Stripped
	Classification string // Fullstack, Micro, Platform
	Database       string // Postgres, MySQL, MongoDB, None
	ORM            string // Full, Micro, Raw
	Language       string
	Platform       string
	Framework      string
	Dockerfile     string // the dockerfile key, when the entry names one
}

// tfbURLKeys maps benchmark_config.json's URL keys to tfb case names.
var tfbURLKeys = map[string]string{
	"json_url": "json", "db_url": "db", "query_url": "queries", "fortune_url": "fortunes",
	"update_url": "updates", "plaintext_url": "plaintext", "cached_query_url": "cached-queries",
}

// tfbTextKeys are a variant's other string keys TFB's toolset reads.
var tfbTextKeys = []string{"approach", "classification", "database", "framework", "language", "flavor", "orm",
	"platform", "webserver", "os", "database_os", "display_name", "notes", "versus", "dockerfile"}

// tfbTopKeys are the keys of the file's top-level object.
var tfbTopKeys = []string{"framework", "tests", "maintainers"}

// maxTFBConfigBytes bounds a benchmark_config.json read.
const maxTFBConfigBytes = 1 << 20

// parseTFBConfig reads a benchmark_config.json strictly: malformed JSON,
// unknown keys and values of the wrong type are errors that name the line
// and column.
func parseTFBConfig(name string, data []byte) (*tfbConfig, error) {
	if len(data) > maxTFBConfigBytes {
		return nil, fmt.Errorf("%s: %d bytes; a benchmark_config.json is a few kilobytes", name, len(data))
	}
	root, err := decodeJSONTree(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", name, err)
	}
	at := func(n *jsonNode) string { l, c := lineCol(data, n.offset); return fmt.Sprintf("%s:%d:%d", name, l, c) }
	if root.kind != '{' {
		return nil, fmt.Errorf("%s: the file is not a JSON object; a benchmark_config.json is {\"framework\": …, \"tests\": [{…}]}", at(root))
	}
	cfg := &tfbConfig{}
	for _, kv := range root.fields {
		switch kv.key {
		case "framework":
			if kv.value.kind != 's' {
				return nil, fmt.Errorf("%s: framework must be a string", at(kv.value))
			}
			cfg.Framework = kv.value.str
		case "maintainers":
		case "tests":
			if kv.value.kind != '[' {
				return nil, fmt.Errorf("%s: tests must be an array of objects of variants: \"tests\": [{\"default\": {…}}]", at(kv.value))
			}
			for _, group := range kv.value.items {
				if group.kind != '{' {
					return nil, fmt.Errorf("%s: each element of tests must be an object of variants", at(group))
				}
				for _, v := range group.fields {
					variant, err := parseTFBVariant(v.key, v.value, at)
					if err != nil {
						return nil, err
					}
					if slices.ContainsFunc(cfg.Variants, func(o tfbVariant) bool { return o.Name == v.key }) {
						return nil, fmt.Errorf("%s: variant %q is defined twice", at(v.keyNode), v.key)
					}
					cfg.Variants = append(cfg.Variants, variant)
				}
			}
		default:
			return nil, fmt.Errorf("%s: unknown key %q; a benchmark_config.json has %s", at(kv.keyNode), kv.key, strings.Join(tfbTopKeys, ", "))
		}
	}
	if cfg.Framework == "" {
		return nil, fmt.Errorf("%s: no \"framework\" key; add \"framework\": \"name\"", name)
	}
	if len(cfg.Variants) == 0 {
		return nil, fmt.Errorf("%s: no variants under \"tests\"; add \"tests\": [{\"default\": {\"json_url\": \"/json\", \"port\": 8080}}]", name)
	}
	return cfg, nil
}

func parseTFBVariant(name string, n *jsonNode, at func(*jsonNode) string) (tfbVariant, error) {
	v := tfbVariant{Name: name, URLs: map[string]string{}}
	if n.kind != '{' {
		return v, fmt.Errorf("%s: variant %q must be an object", at(n), name)
	}
	text := map[string]*string{"approach": &v.Approach, "classification": &v.Classification, "database": &v.Database,
		"orm": &v.ORM, "language": &v.Language, "platform": &v.Platform, "framework": &v.Framework, "dockerfile": &v.Dockerfile}
	for _, kv := range n.fields {
		switch {
		case tfbURLKeys[kv.key] != "":
			if kv.value.kind != 's' || !strings.HasPrefix(kv.value.str, "/") {
				return v, fmt.Errorf("%s: %s must be a path starting with /, e.g. \"/json\"", at(kv.value), kv.key)
			}
			v.URLs[tfbURLKeys[kv.key]] = kv.value.str
		case kv.key == "port":
			p, ok := kv.value.integer()
			if !ok || p < 1 || p > 65535 {
				return v, fmt.Errorf("%s: port must be a number from 1 to 65535", at(kv.value))
			}
			v.Port = p
		case kv.key == "tags":
			if kv.value.kind != '[' {
				return v, fmt.Errorf("%s: tags must be an array of strings", at(kv.value))
			}
		case slices.Contains(tfbTextKeys, kv.key):
			if kv.value.kind != 's' {
				return v, fmt.Errorf("%s: %s must be a string", at(kv.value), kv.key)
			}
			if p := text[kv.key]; p != nil {
				*p = kv.value.str
			}
		default:
			known := slices.Sorted(func(yield func(string) bool) {
				for k := range tfbURLKeys {
					if !yield(k) {
						return
					}
				}
			})
			known = append(append(known, "port", "tags"), tfbTextKeys...)
			return v, fmt.Errorf("%s: unknown key %q in variant %q; %s", at(kv.keyNode), kv.key, name, didYouMeanKey(kv.key, known))
		}
	}
	if len(v.URLs) == 0 {
		return v, fmt.Errorf("%s: variant %q has no test URL (json_url, db_url, …)", at(n), name)
	}
	if a := v.Approach; a != "" && a != "Realistic" && a != "Stripped" {
		return v, fmt.Errorf("%s: variant %q: approach %q; TFB's approaches are Realistic and Stripped", at(n), name, a)
	}
	return v, nil
}

// didYouMeanKey suggests the known key nearest to key, or lists them.
func didYouMeanKey(key string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, key) || strings.ReplaceAll(k, "_", "") == strings.ReplaceAll(strings.ToLower(key), "_", "") {
			return fmt.Sprintf("did you mean %q?", k)
		}
	}
	return "known keys: " + strings.Join(known, ", ")
}

// jsonNode is a parsed JSON value with its offset in the input, so that
// messages can name a line and column.
type jsonNode struct {
	kind   byte // '{', '[', 's' string, 'n' number, 'b' bool, '0' null
	offset int64
	str    string
	num    json.Number
	fields []jsonField
	items  []*jsonNode
}

type jsonField struct {
	key     string
	keyNode *jsonNode
	value   *jsonNode
}

func (n *jsonNode) integer() (int, bool) {
	if n.kind != 'n' {
		return 0, false
	}
	i, err := n.num.Int64()
	return int(i), err == nil
}

// maxJSONDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxJSONDepth = 32

// decodeJSONTree parses data into a tree of jsonNodes; a syntax error
// names its line and column.
func decodeJSONTree(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readJSONNode(dec, data, 0)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			l, c := lineCol(data, dec.InputOffset())
			return nil, fmt.Errorf("%d:%d: more JSON after the top-level value", l, c)
		}
	}
	return n, err
}

func readJSONNode(dec *json.Decoder, data []byte, depth int) (*jsonNode, error) {
	start := skipSpace(data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErrorAt(data, dec, err)
	}
	if depth > maxJSONDepth {
		l, c := lineCol(data, start)
		return nil, fmt.Errorf("%d:%d: nested more than %d levels deep", l, c, maxJSONDepth)
	}
	n := &jsonNode{offset: start}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = '{'
			for dec.More() {
				keyStart := skipSpace(data, dec.InputOffset())
				if keyStart < int64(len(data)) && data[keyStart] == ',' {
					keyStart = skipSpace(data, keyStart+1)
				}
				kt, err := dec.Token()
				if err != nil {
					return nil, jsonErrorAt(data, dec, err)
				}
				key, _ := kt.(string)
				v, err := readJSONNode(dec, data, depth+1)
				if err != nil {
					return nil, err
				}
				if slices.ContainsFunc(n.fields, func(f jsonField) bool { return f.key == key }) {
					l, c := lineCol(data, keyStart)
					return nil, fmt.Errorf("%d:%d: key %q appears twice in one object", l, c, key)
				}
				n.fields = append(n.fields, jsonField{key: key, keyNode: &jsonNode{kind: 's', offset: keyStart, str: key}, value: v})
			}
		case '[':
			n.kind = '['
			for dec.More() {
				v, err := readJSONNode(dec, data, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, jsonErrorAt(data, dec, err)
		}
	case string:
		n.kind, n.str = 's', t
	case json.Number:
		n.kind, n.num = 'n', t
	case bool:
		n.kind = 'b'
	case nil:
		n.kind = '0'
	}
	return n, nil
}

// skipSpace returns the offset of the first non-space byte at or after off
// (a value's start; the decoder's offset is the previous token's end).
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// jsonErrorAt words a decoding error with its line and column.
func jsonErrorAt(data []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		off = syn.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		off = int64(len(data))
		err = errors.New("the file ends before the JSON does")
	}
	l, c := lineCol(data, off)
	return fmt.Errorf("%d:%d: malformed JSON: %v", l, c, err)
}

// lineCol turns a byte offset into a 1-based line and column (in bytes).
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
