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

// trustRecordedFile checks the comparison file a resume would run, as the
// journal of the results directory names it: a results directory is data,
// and the file is code (its commands run). It is taken when the user
// names the same file (-f), or, without -f, when it is the file a plain
// `stackbench run` here would read; otherwise the user must name it.
func trustRecordedFile(given runArgs, recorded string) error {
	switch {
	case given.fileGiven && given.file != recorded:
		return usagef("the run in %s was started with -f %s, not %s; resume it with its own file, or start a new run", given.resume, recorded, given.file)
	case !given.fileGiven && given.file != recorded:
		return usagef("the run in %s was started with -f %s; its commands run on a resume, and a results directory is data: name the file yourself, stackbench run --resume %s -f %s", given.resume, recorded, given.resume, recorded)
	}
	return nil
}
