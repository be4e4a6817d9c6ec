package run

import (
	"os"
	"path/filepath"
)

// A results directory and what stackbench writes in it are private to
// the user who ran it: request bodies, tokens and server output may be
// in there (docs/SECURITY.md).
const (
	privateDirMode  os.FileMode = 0o700
	privateFileMode os.FileMode = 0o600
)

// poolDir returns the directory for request pools under sub: outside the
// results directory, since a pool holds the requests as sent (expanded
// ${env:…} values, captured tokens, signed JWTs). It is Options.PoolDir,
// or a private temporary directory that removePools deletes when the
// run ends.
func (r *runner) poolDir(sub ...string) (string, error) {
	if r.poolRoot == "" {
		if r.opt.PoolDir != "" {
			r.poolRoot = r.opt.PoolDir
		} else {
			dir, err := os.MkdirTemp("", "stackbench-pools-")
			if err != nil {
				return "", err
			}
			r.poolRoot, r.poolTemp = dir, true
		}
	}
	dir := filepath.Join(append([]string{r.poolRoot}, sub...)...)
	return dir, os.MkdirAll(dir, privateDirMode)
}

// removePools deletes the temporary pool directory, if one was made.
func (r *runner) removePools() {
	if r.poolTemp {
		os.RemoveAll(r.poolRoot)
	}
	r.poolRoot, r.poolTemp = "", false
}
