package local

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

// ReadNoWait is the flag to open a file for reading without waiting:
// O_RDONLY with O_NONBLOCK, so that opening a FIFO does not block for a
// writer (beyond signals) and the caller can refuse what is not a regular
// file before it reads. On a regular file it changes nothing.
const ReadNoWait = os.O_RDONLY | unix.O_NONBLOCK
