package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/journal"
)

// readResults reads a run's results directory. A directory that is not one
// is bad input (exit 2) with a message that says what to name instead; what
// is wrong inside a journal is left to its reader.
func readResults(dir string) (*journal.Results, error) {
	const what = "name a results directory that stackbench run wrote (results/<timestamp>)"
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, usagef("%s does not exist; %s", dir, what)
	case !st.IsDir():
		return nil, usagef("%s is a file, not a directory; %s", dir, what)
	}
	if _, err := os.Stat(filepath.Join(dir, journal.FileName)); err != nil {
		return nil, usagef("%s has no %s; %s", dir, journal.FileName, what)
	}
	res, err := journal.ReadDir(dir)
	switch {
	case errors.Is(err, journal.ErrNoPlan):
		return nil, usagef("%s has a %s without a plan record: stackbench run did not write it, or was stopped before it began; name another results directory, or start a new run", dir, journal.FileName)
	case err != nil:
		return nil, fmt.Errorf("read the journal of %s: %w", dir, err)
	}
	return res, nil
}
