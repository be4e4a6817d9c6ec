package dx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/fileutil"
)

// Edit is a one-line change applied to a file, and the means to undo it.
type Edit struct {
	path     string
	original []byte
	mode     os.FileMode
}

// ApplyEdit replaces the first occurrence of find in the file with
// replace, writing in place (truncate and write, as an editor saving over
// the file does, so that a watcher on the file's inode sees it). The caller
// must defer Restore. A file that holds replace but not find is refused:
// it looks edited by a run that was killed.
func ApplyEdit(path, find, replace string) (*Edit, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the file to edit: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(data, []byte(find)) {
		if bytes.Contains(data, []byte(replace)) {
			return nil, fmt.Errorf("%s holds the edit's replacement %q but not %q: a killed run may have left its edit there; put %q back (e.g. git checkout -- %s) and run again", path, replace, find, find, filepath.Base(path))
		}
		return nil, fmt.Errorf("%s does not contain %q; change find: to a text the file holds", path, find)
	}
	e := &Edit{path: path, original: data, mode: st.Mode().Perm()}
	edited := bytes.Replace(data, []byte(find), []byte(replace), 1)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", path, err)
	}
	_, werr := f.Write(edited)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		// A partial write: put the original back before reporting.
		rerr := e.Restore()
		return nil, fmt.Errorf("edit %s: %v (restored: %v)", path, firstErr(werr, cerr), rerr)
	}
	return e, nil
}

// Restore writes the original bytes back atomically: into a temporary file
// in the same directory, synced, then renamed over the file, so that an
// interruption leaves either the edited or the original file, never a torn
// one. It may be called more than once.
func (e *Edit) Restore() error {
	if e == nil {
		return nil
	}
	if err := fileutil.WriteFile(e.path, e.original, e.mode); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
