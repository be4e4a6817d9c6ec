package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the model as indented JSON (report.json).
func WriteJSON(w io.Writer, m *Model) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("encode report model: %w", err)
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
