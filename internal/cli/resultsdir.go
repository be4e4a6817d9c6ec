package cli

import (
	"fmt"
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
	_, err = planRecord(dir)
	return err
}

// planRecord reads the plan record of a results directory's journal; a
// journal without one is bad input.
func planRecord(dir string) (journal.Plan, error) {
	lines, _, err := journal.ReadFile(filepath.Join(dir, journal.FileName))
	if err != nil {
		return journal.Plan{}, fmt.Errorf("read the journal of %s: %w", dir, err)
	}
	for _, l := range lines {
		if l.Kind == journal.KindPlan {
			var p journal.Plan
			if err := l.Decode(&p); err != nil {
				return p, fmt.Errorf("read the plan record of %s: %w", dir, err)
			}
			return p, nil
		}
	}
	return journal.Plan{}, usagef("%s has a %s without a plan record: stackbench run did not write it, or was stopped before it began; name another results directory, or start a new run", dir, journal.FileName)
}
