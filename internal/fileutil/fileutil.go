// Package fileutil holds the file helpers several packages need alike: a
// log's tail for an error message, a file replaced whole, and the writes
// that follow no symbolic link (OpenIn, WriteIn, MkdirIn: every write in
// a results directory or a cluster directory, which are data; the system
// calls are platform/local's). It imports nothing of ours but
// platform/local, so every package may use it, pgfix included.
package fileutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// TailBytes is how much of a log an error message quotes: the last 4 KiB.
const TailBytes = 4096

// Tail returns the end of the file at path written after offset: at most
// its last TailBytes, from the start of a line when cut, without trailing
// white space; "" when there is nothing or the file cannot be read.
func Tail(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return ""
	}
	start := max(end-TailBytes, offset, 0)
	if start >= end {
		return ""
	}
	b := make([]byte, end-start)
	n, _ := f.ReadAt(b, start)
	b = b[:n]
	if start > offset {
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimRight(string(b), " \t\r\n")
}

// WriteFile replaces the file at path with data, whole: it is written to a
// temporary file in the same directory, synced, and renamed over path, so a
// reader (or a crash) never sees half of it.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	err = errors.Join(werr, serr, cerr)
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
