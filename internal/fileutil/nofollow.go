package fileutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// ErrNotRegular is wrapped by the errors of OpenIn, WriteIn and MkdirIn
// when what they would write is a symbolic link, a directory, a FIFO or a
// device (local.ErrNotRegular).
var ErrNotRegular = local.ErrNotRegular

// OpenIn opens name, a slash-separated path relative to dir, following no
// symbolic link on the way: dir itself is taken as named (the user named
// it), but every element of name, the last included, must be a real
// folder or file, each opened relative to the one before (openat with
// O_NOFOLLOW), so that a link someone left in a results directory, in
// place of a file or of a folder, never carries a write elsewhere. With
// os.O_CREATE, missing folders of name are made (mode 0700) and the file
// with perm. The file opened must be a regular file: a FIFO or a device is
// refused (opened without blocking, then closed).
func OpenIn(dir, name string, flag int, perm os.FileMode) (*os.File, error) {
	return local.OpenIn(dir, name, flag, perm)
}

// MkdirIn makes the folder name under dir (and the folders above it in
// name) with mode perm when missing, following no symbolic link: an
// element of name that is a link, or a file, is refused.
func MkdirIn(dir, name string, perm os.FileMode) error { return local.MkdirIn(dir, name, perm) }

// WriteIn writes data to name under dir (OpenIn: no link followed),
// creating or truncating it, and gives it mode perm (on the file opened,
// never through a path), whatever the umask or an earlier mode.
func WriteIn(dir, name string, data []byte, perm os.FileMode) error {
	f, err := OpenIn(dir, name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	merr := f.Chmod(perm)
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// WritePath is WriteIn for a full path: only its last element is checked
// (no link followed there), the folders above are taken as named.
func WritePath(path string, data []byte, perm os.FileMode) error {
	return WriteIn(filepath.Dir(path), filepath.Base(path), data, perm)
}

// OpenPath is OpenIn for a full path: only its last element is checked.
func OpenPath(path string, flag int, perm os.FileMode) (*os.File, error) {
	return OpenIn(filepath.Dir(path), filepath.Base(path), flag, perm)
}

// CheckOwnPrivate returns an error unless path (not followed if a link) is
// owned by the user this process runs as and writable by nobody else (no
// group or other write bit): what a file or folder must be before
// stackbench takes what it says as its own record.
func CheckOwnPrivate(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return OwnPrivate(path, fi)
}

// OwnPrivate is CheckOwnPrivate of what fi describes (of an open file:
// f.Stat), named path in the error.
func OwnPrivate(path string, fi os.FileInfo) error {
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link, not stackbench's own", path)
	}
	uid, _, ok := local.FileOwner(fi)
	if !ok {
		return fmt.Errorf("%s: its owner cannot be read", path)
	}
	if euid := os.Geteuid(); uid != euid {
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d): another user's, not used", path, uid, euid)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %04o): not used", path, perm)
	}
	return nil
}
