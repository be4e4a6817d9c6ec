package pgfix

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// serverBinaries are the programs a cluster needs, all from one directory.
var serverBinaries = []string{"initdb", "pg_ctl", "postgres"}

// binaryGlobs are searched after PATH: Debian/Ubuntu packages, then Homebrew
// (Apple silicon, Intel, Linuxbrew). Within one glob the newest version wins.
var binaryGlobs = []string{
	"/usr/lib/postgresql/*/bin",
	"/opt/homebrew/opt/postgresql@*/bin",
	"/opt/homebrew/opt/postgresql/bin",
	"/usr/local/opt/postgresql@*/bin",
	"/usr/local/opt/postgresql/bin",
	"/home/linuxbrew/.linuxbrew/opt/postgresql@*/bin",
	"/usr/pgsql-*/bin",
}

// ErrNoBinaries is wrapped by FindBinaries' error when no PostgreSQL server
// binaries were found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found")

// FindBinaries returns the directory holding initdb, pg_ctl and postgres:
// the first directory on PATH that has all three, else the newest version
// under /usr/lib/postgresql/*/bin, else a Homebrew prefix. The error, when
// none is found, tells the user how to install them or to pass
// --database-url instead.
func FindBinaries() (binDir string, err error) {
	return findBinaries(filepath.SplitList(os.Getenv("PATH")), binaryGlobs)
}

func findBinaries(pathDirs, globs []string) (string, error) {
	for _, dir := range pathDirs {
		if dir != "" && hasServerBinaries(dir) {
			return dir, nil
		}
	}
	for _, g := range globs {
		matches, _ := filepath.Glob(g)
		sort.Slice(matches, func(i, j int) bool { return versionLess(matches[j], matches[i]) })
		for _, dir := range matches {
			if hasServerBinaries(dir) {
				return dir, nil
			}
		}
	}
	return "", fmt.Errorf("%w on PATH, in /usr/lib/postgresql/*/bin or in Homebrew's prefixes; "+
		"install them (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql@15) "+
		"or use a server of your own with --database-url postgres://user:password@host:port/db", ErrNoBinaries)
}

func hasServerBinaries(dir string) bool {
	for _, name := range serverBinaries {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// versionLess orders paths by the last number in them (".../15/bin" <
// ".../postgresql@16/bin"), then by name.
func versionLess(a, b string) bool {
	va, vb := lastNumber(a), lastNumber(b)
	if va != vb {
		return va < vb
	}
	return a < b
}

func lastNumber(s string) int {
	end := strings.LastIndexAny(s, "0123456789") + 1
	if end == 0 {
		return -1
	}
	start := end
	for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
		start--
	}
	n, _ := strconv.Atoi(s[start:end])
	return n
}

// serverVersion returns the output of "postgres --version", e.g.
// "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
func serverVersion(binDir string) (string, error) {
	out, err := exec.Command(filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("run %s --version: %w", filepath.Join(binDir, "postgres"), err)
	}
	return strings.TrimSpace(string(out)), nil
}
