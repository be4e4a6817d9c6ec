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

// poolRoot is where the request pools go: outside the results directory,
// since a pool holds the requests as sent (expanded ${env:…} values,
// captured tokens, signed JWTs). It is Options.PoolDir (configured), or a
// private temporary directory made at the first use, which remove
// deletes when the run ends.
type poolRoot struct {
	configured string
	dir        string
	temp       bool // dir is a temporary directory of this invocation
}

// sub returns the pool directory under the root at sub, made private.
func (p *poolRoot) sub(sub ...string) (string, error) {
	if p.dir == "" {
		if p.configured != "" {
			p.dir = p.configured
		} else {
			dir, err := os.MkdirTemp("", "stackbench-pools-")
			if err != nil {
				return "", err
			}
			p.dir, p.temp = dir, true
		}
	}
	dir := filepath.Join(append([]string{p.dir}, sub...)...)
	return dir, os.MkdirAll(dir, privateDirMode)
}

// remove deletes the temporary pool directory, if one was made.
func (p *poolRoot) remove() {
	if p.temp {
		os.RemoveAll(p.dir)
	}
	p.dir, p.temp = "", false
}
