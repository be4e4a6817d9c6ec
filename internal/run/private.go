package run

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
)

// A results directory and what stackbench writes in it are private to
// the user who ran it: request bodies, tokens and server output may be
// in there (docs/SECURITY.md).
const (
	privateDirMode  os.FileMode = 0o700
	privateFileMode os.FileMode = 0o600
)

// poolRoot is where the request pools go: outside the results directory,
// since a pool holds the requests as sent (expanded ${env:…} values,
// captured tokens, signed JWTs). It is Options.PoolDir (configured), or a
// private temporary directory made at the first use, which remove
// deletes when the run ends. A temporary one is named in the results
// directory (PoolsPathFile) as soon as it is made, so that a resume
// removes what a harness killed with SIGKILL left there (removeLeftPools).
type poolRoot struct {
	configured string
	// results is the results directory, where PoolsPathFile is written
	// ("": not recorded).
	results string
	dir     string
	temp    bool // dir is a temporary directory of this invocation
}

// PoolsPathFile names, in a results directory, the file that holds the
// temporary directory of the run's request pools while the run lasts.
const PoolsPathFile = "pools.path"

// poolsPrefix begins the name of a temporary pool directory.
const poolsPrefix = "stackbench-pools-"

// sub returns the pool directory under the root at sub, made private.
func (p *poolRoot) sub(sub ...string) (string, error) {
	if p.dir == "" {
		if p.configured != "" {
			p.dir = p.configured
		} else {
			dir, err := os.MkdirTemp("", poolsPrefix)
			if err != nil {
				return "", err
			}
			p.dir, p.temp = dir, true
			if p.results != "" {
				if err := fileutil.WriteIn(p.results, PoolsPathFile, []byte(dir+"\n"), privateFileMode); err != nil {
					os.RemoveAll(dir)
					p.dir, p.temp = "", false
					return "", fmt.Errorf("record the request pools' directory: %w", err)
				}
			}
		}
	}
	dir := filepath.Join(append([]string{p.dir}, sub...)...)
	return dir, os.MkdirAll(dir, privateDirMode)
}

// remove deletes the temporary pool directory, if one was made, and its
// record.
func (p *poolRoot) remove() {
	if p.temp {
		os.RemoveAll(p.dir)
		if p.results != "" {
			os.Remove(filepath.Join(p.results, PoolsPathFile))
		}
	}
	p.dir, p.temp = "", false
}

// removeLeftPools removes the temporary pool directory the results
// directory dir names, left by a run killed before it could (its pools
// hold expanded secrets), and the record. The record is data: only a
// stackbench-pools-* directory directly in the temporary directory, this
// user's own and writable by no one else, is removed; anything else is
// left, said through event.
func removeLeftPools(dir string, event func(level journal.Level, stack, format string, a ...any)) {
	f, err := fileutil.OpenIn(dir, PoolsPathFile, os.O_RDONLY, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			event(journal.LevelWarning, "", "%v: not read", err)
			os.Remove(filepath.Join(dir, PoolsPathFile))
		}
		return
	}
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	f.Close()
	os.Remove(filepath.Join(dir, PoolsPathFile))
	left := strings.TrimSpace(string(b))
	if _, err := os.Lstat(left); errors.Is(err, fs.ErrNotExist) {
		return // gone already (a reboot emptied the temporary directory)
	}
	if err := checkLeftPools(left); err != nil {
		event(journal.LevelWarning, "", "%s names %s: %v; not removed", PoolsPathFile, left, err)
		return
	}
	if err := os.RemoveAll(left); err != nil {
		event(journal.LevelWarning, "", "remove the request pools left by the stopped run in %s: %v; remove it by hand, it holds the requests as sent", left, err)
		return
	}
	event(journal.LevelInfo, "", "removed the request pools left by the stopped run in %s", left)
}

// checkLeftPools says why left is not a pool directory a run of this user
// made, nil when it is one.
func checkLeftPools(left string) error {
	if !filepath.IsAbs(left) || filepath.Dir(left) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(left), poolsPrefix) {
		return fmt.Errorf("not a %s* directory directly in %s", poolsPrefix, os.TempDir())
	}
	if fi, err := os.Lstat(left); err != nil || !fi.IsDir() {
		return fmt.Errorf("not a directory")
	}
	return fileutil.CheckOwnPrivate(left)
}
