package fileutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is wrapped by OpenIn's error when the file it would write
// is a symbolic link, a directory, a FIFO or a device: a results directory
// (or a cluster directory) is data, and a link planted in it must not
// redirect a write to a file elsewhere.
var ErrNotRegular = errors.New("not a regular file")

// OpenIn opens name, a slash-separated path relative to dir, following no
// symbolic link on the way: dir itself is taken as named (the user named
// it), but every element of name, the last included, must be a real
// directory or file, each opened relative to the one before (openat with
// O_NOFOLLOW), so that a link someone left in a results directory, in
// place of a file or of a folder, never carries a write elsewhere. With
// os.O_CREATE, missing folders of name are made (mode 0700) and the file
// with perm. The file opened must be a regular file: a FIFO or a device is
// refused (opened without blocking, then closed).
func OpenIn(dir, name string, flag int, perm os.FileMode) (*os.File, error) {
	full := filepath.Join(dir, name)
	parent, base, err := openParent(dir, name, flag&os.O_CREATE != 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", full, err)
	}
	defer unix.Close(parent)
	fd, err := openatNoFollow(parent, base, flag|unix.O_NONBLOCK, uint32(perm.Perm()))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", full, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("open %s: %w", full, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, fmt.Errorf("open %s: %w: refusing to write it; remove it", full, ErrNotRegular)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("open %s: %w", full, err)
	}
	return os.NewFile(uintptr(fd), full), nil
}

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

// MkdirIn makes the folder name under dir (and the folders above it in
// name) with mode perm when missing, following no symbolic link: an
// element of name that is a link, or a file, is refused.
func MkdirIn(dir, name string, perm os.FileMode) error {
	parts, err := splitInside(dir, name)
	if err != nil {
		return err
	}
	fd, err := walkFolders(dir, parts, true, perm)
	if err != nil {
		return fmt.Errorf("make %s: %w", filepath.Join(dir, name), err)
	}
	unix.Close(fd)
	return nil
}

// openParent opens dir, then each folder of name but the last element,
// none of them through a link; mk makes the missing ones (0700). It
// returns the last folder's descriptor and the last element.
func openParent(dir, name string, mk bool) (fd int, base string, err error) {
	parts, err := splitInside(dir, name)
	if err != nil {
		return -1, "", err
	}
	fd, err = walkFolders(dir, parts[:len(parts)-1], mk, 0o700)
	return fd, parts[len(parts)-1], err
}

// splitInside splits name, a path that must stay inside dir, into its
// elements.
func splitInside(dir, name string) ([]string, error) {
	clean := filepath.ToSlash(filepath.Clean(name))
	if filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, fmt.Errorf("%q is not a path inside %s", name, dir)
	}
	return strings.Split(clean, "/"), nil
}

// walkFolders opens dir, then each of folders in turn inside the one
// before, never through a link; mk makes the missing ones with perm. It
// returns the last one's descriptor.
func walkFolders(dir string, folders []string, mk bool, perm os.FileMode) (int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, p := range folders {
		next, err := openatNoFollow(fd, p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if errors.Is(err, fs.ErrNotExist) && mk {
			if err = unix.Mkdirat(fd, p, uint32(perm.Perm())); err == nil || errors.Is(err, fs.ErrExist) {
				next, err = openatNoFollow(fd, p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("folder %s: %w", p, err)
		}
		fd = next
	}
	return fd, nil
}

// openatNoFollow is openat(2) with O_NOFOLLOW and O_CLOEXEC; a link in
// the last place reads as ErrNotRegular (ELOOP, or ENOTDIR for a link
// where a folder was wanted).
func openatNoFollow(dirfd int, name string, flag int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ELOOP || err == unix.EMLINK || (err == unix.ENOTDIR && isLink(dirfd, name)) {
			return -1, fmt.Errorf("%s is a symbolic link (%w): refusing to follow it; remove it", name, ErrNotRegular)
		}
		if err == unix.ENXIO {
			return -1, fmt.Errorf("%s is a FIFO or a device without a reader (%w); remove it", name, ErrNotRegular)
		}
		return fd, err
	}
}

// isLink reports whether name in dirfd is a symbolic link.
func isLink(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// CheckOwnPrivate returns an error unless path (not followed if a link) is
// owned by the user this process runs as and writable by nobody else (no
// group or other write bit): what a file or folder must be before
// stackbench takes what it says as its own record.
func CheckOwnPrivate(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("%s is a symbolic link, not stackbench's own", path)
	}
	if euid := os.Geteuid(); int(st.Uid) != euid {
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d): another user's, not used", path, st.Uid, euid)
	}
	if perm := os.FileMode(st.Mode).Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %04o): not used", path, perm)
	}
	return nil
}
