package cli

import (
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/journal"
)

// checkResultsDir makes a directory that is not a run's results directory
// bad input (exit 2) with a message that says what to name instead; what is
// wrong inside a journal is left to its reader.
func checkResultsDir(dir string) error {
	const what = "name a results directory that stackbench run wrote (results/<timestamp>)"
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("%s does not exist; %s", dir, what)
	case !st.IsDir():
		return usagef("%s is a file, not a directory; %s", dir, what)
	}
	if _, err := os.Stat(filepath.Join(dir, journal.FileName)); err != nil {
		return usagef("%s has no %s; %s", dir, journal.FileName, what)
	}
	return nil
}
