package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// PrivateLogDir returns the directory for the logs of servers an agent
// starts: stackbench/logs under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache), made 0700. Not /tmp: a file there can be
// read by other users, or made beforehand by one of them (a symlink that
// sends the server's output into a file of the victim's choosing).
func PrivateLogDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("server logs: %w", err)
	}
	dir := filepath.Join(cache, "stackbench", "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("server logs: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("server logs: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("server logs: %s is not a directory (a symlink?); remove it", dir)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("server logs: %w", err)
	}
	return dir, nil
}

// CreatePrivateLog creates a new, empty log file for name in dir, mode
// 0600, refusing to follow a symlink or to reuse a file: name.log, or
// name.2.log and so on when that exists. It returns the file's path.
func CreatePrivateLog(dir, name string) (string, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("server log: %q is not a file name", name)
	}
	for n := 1; n <= 1000; n++ {
		path := filepath.Join(dir, name+".log")
		if n > 1 {
			path = filepath.Join(dir, name+"."+strconv.Itoa(n)+".log")
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|local.NoFollow, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("server log: %w", err)
		}
		f.Close()
		return path, nil
	}
	return "", fmt.Errorf("server log: 1000 logs of %s in %s already; remove old ones", name, dir)
}
