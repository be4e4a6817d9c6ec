package run

import (
	"encoding/json"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/fileutil"
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
	return fileutil.WriteFile(filepath.Join(dir, journal.ResultsFile), append(b, '\n'), privateFileMode)
}
