package live

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/journal"
)

// tail follows a results directory's journal as a run appends to it: each
// poll reads only the bytes added since the last one, up to their last
// newline (a line the run is still writing is left for the next poll, so
// a torn last line is never an error here), and folds the records into
// one journal.Results. It opens the journal read-only and writes nothing.
type tail struct {
	path string
	// off is how far the journal has been read: always just past a
	// newline. lines counts the lines read, for the journal's line numbers.
	off   int64
	lines int
	res   *journal.Results
	// resets counts how often the journal shrank (a resume cut a torn
	// tail) and was read again from the start.
	resets int
}

func newTail(dir string) *tail {
	return &tail{path: filepath.Join(dir, journal.FileName), res: journal.NewResults()}
}

// poll folds the journal's new complete lines into t.res and returns how
// many records it added. A journal that does not exist yet adds none.
func (t *tail) poll() (int, error) {
	f, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("open the journal: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() < t.off {
		// The journal shrank: a resume cut the torn line we had not read
		// anyway, or the file was replaced. Read it again from the start.
		t.off, t.lines, t.res = 0, 0, journal.NewResults()
		t.resets++
	}
	if st.Size() == t.off {
		return 0, nil
	}
	buf := make([]byte, st.Size()-t.off)
	n, err := f.ReadAt(buf, t.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("read the journal: %w", err)
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return 0, nil
	}
	buf = buf[:end+1]
	lines, problems, err := journal.Read(bytes.NewReader(buf))
	if err != nil {
		return 0, err
	}
	for _, p := range problems {
		t.res.JournalProblems = append(t.res.JournalProblems, journal.Problem{Line: p.Line + t.lines, Msg: p.Msg}.String())
	}
	for _, l := range lines {
		l.Number += t.lines
		t.res.Add(l)
	}
	t.lines += bytes.Count(buf, []byte{'\n'})
	t.off += int64(len(buf))
	return len(lines), nil
}
