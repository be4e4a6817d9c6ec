package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the model as indented JSON (report.json).
func WriteJSON(w io.Writer, m *Model) error { return writeJSON(w, m) }

// writeJSON writes v as indented JSON, leaving <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return nil
}

// ReadJSON reads a model written by WriteJSON, refusing a newer version.
func ReadJSON(r io.Reader) (*Model, error) {
	var m Model
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return nil, fmt.Errorf("decode report model: %w", err)
	}
	if m.ModelVersion > ModelVersion {
		return nil, fmt.Errorf("report model version %d is newer than this stackbench reads (%d): upgrade stackbench", m.ModelVersion, ModelVersion)
	}
	return &m, nil
}
