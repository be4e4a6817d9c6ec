// Package gojson is the saas.Codec over github.com/goccy/go-json, the JSON
// layer of the nethttp-pgx-gojson reference server. It lives in its own
// package so that servers that do not use it do not link goccy/go-json.
package gojson

import (
	json "github.com/goccy/go-json"
)

// Codec is the saas.Codec over goccy/go-json. Its bodies are byte-identical
// to saas.StdJSON's: no HTML escaping, no trailing newline.
type Codec struct{}

// Marshal implements saas.Codec. DisableHTMLEscape turns off the escaping of
// <, > and & that go-json, like encoding/json, does by default. (Its
// MarshalNoEscape is about heap escape analysis, not HTML: it escapes.)
func (Codec) Marshal(v any) ([]byte, error) {
	return json.MarshalWithOption(v, json.DisableHTMLEscape())
}

// Unmarshal implements saas.Codec.
func (Codec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
