package run

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/journal"
)

// writeResults writes results.json from the journal.
func writeResults(dir string) error {
	res, err := journal.ReadDir(dir)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, journal.ResultsFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, journal.ResultsFile))
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
