package saas

import (
	"bytes"
	"encoding/json"
)

// Codec is the JSON layer: how request bodies are decoded and responses
// encoded. A benchmark step that compares JSON libraries swaps this and
// nothing else.
type Codec interface {
	// Marshal encodes v without HTML escaping and without a trailing newline.
	Marshal(v any) ([]byte, error)
	// Unmarshal decodes data into v with encoding/json's semantics.
	Unmarshal(data []byte, v any) error
}

// StdJSON is the Codec over the standard library's encoding/json.
type StdJSON struct{}

// Marshal implements Codec. It writes through an Encoder because
// json.Marshal always escapes <, > and &, which JSON.stringify does not.
func (StdJSON) Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// Unmarshal implements Codec.
func (StdJSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
