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

// binarySource is one place PostgreSQL's server binaries are installed:
// a glob of bin directories (within one glob the newest version wins).
type binarySource struct {
	Name string
	Glob string
}

// binarySources are searched after PATH and pg_config, in this order:
// Debian/Ubuntu packages, Homebrew (Apple silicon under /opt/homebrew,
// Intel under /usr/local; the versioned opt links, the unversioned one,
// then the Cellar), Postgres.app, Linuxbrew, and the PGDG RPMs.
var binarySources = []binarySource{
	{"Debian/Ubuntu package", "/usr/lib/postgresql/*/bin"},
	{"Homebrew", "/opt/homebrew/opt/postgresql@*/bin"},
	{"Homebrew", "/opt/homebrew/opt/postgresql/bin"},
	{"Homebrew", "/usr/local/opt/postgresql@*/bin"},
	{"Homebrew", "/usr/local/opt/postgresql/bin"},
	{"Homebrew", "/opt/homebrew/Cellar/postgresql@*/*/bin"},
	{"Homebrew", "/usr/local/Cellar/postgresql@*/*/bin"},
	{"Postgres.app", "/Applications/Postgres.app/Contents/Versions/*/bin"},
	{"Linuxbrew", "/home/linuxbrew/.linuxbrew/opt/postgresql@*/bin"},
	{"PGDG package", "/usr/pgsql-*/bin"},
}

// ErrNoBinaries is wrapped by FindBinaries' error when no PostgreSQL server
// binaries were found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found")

// Binaries is where the server binaries were found.
type Binaries struct {
	// Dir holds initdb, pg_ctl and postgres.
	Dir string
	// Source says how Dir was found: "PATH", "pg_config --bindir",
	// "Homebrew", "Postgres.app", "Debian/Ubuntu package", ….
	Source string
}

// String is "DIR (SOURCE)".
func (b Binaries) String() string { return b.Dir + " (" + b.Source + ")" }

// FindBinaries returns the directory holding initdb, pg_ctl and postgres
// (see LocateBinaries).
func FindBinaries() (binDir string, err error) {
	b, err := LocateBinaries()
	return b.Dir, err
}

// LocateBinaries finds initdb, pg_ctl and postgres, all in one directory:
// the first directory on PATH that has all three, else the directory
// `pg_config --bindir` names, else the newest version of each of
// binarySources in turn. The error, when none is found, names the install
// commands of each platform and --database-url.
func LocateBinaries() (Binaries, error) {
	return locateBinaries(filepath.SplitList(os.Getenv("PATH")), pgConfigBindir, binarySources)
}

// pgConfigBindir asks pg_config (found on PATH) for the server's bin
// directory; "" when there is no pg_config.
func pgConfigBindir() string {
	out, err := exec.Command("pg_config", "--bindir").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func locateBinaries(pathDirs []string, pgConfig func() string, sources []binarySource) (Binaries, error) {
	if found := candidateBinaries(pathDirs, pgConfig, sources, true); len(found) > 0 {
		return found[0], nil
	}
	return Binaries{}, fmt.Errorf("%w on PATH, through pg_config --bindir, in /usr/lib/postgresql/*/bin, "+
		"in Homebrew's prefixes (/opt/homebrew, /usr/local) or in Postgres.app; install them "+
		"(Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql@15, "+
		"or Postgres.app from postgresapp.com; Fedora: dnf install postgresql-server) "+
		"or use a server of your own with --database-url postgres://user:password@host:port/db", ErrNoBinaries)
}

// candidateBinaries returns the directories holding the three binaries
// where LocateBinaries looks, in its order (first alone when first is
// set: the search stops there).
func candidateBinaries(pathDirs []string, pgConfig func() string, sources []binarySource, first bool) []Binaries {
	var out []Binaries
	add := func(dir, source string) bool {
		if dir == "" || !hasServerBinaries(dir) {
			return false
		}
		out = append(out, Binaries{Dir: dir, Source: source})
		return first
	}
	for _, dir := range pathDirs {
		if add(dir, "PATH") {
			return out
		}
	}
	if add(pgConfig(), "pg_config --bindir") {
		return out
	}
	for _, src := range sources {
		matches, _ := filepath.Glob(src.Glob)
		sort.Slice(matches, func(i, j int) bool { return versionLess(matches[j], matches[i]) })
		for _, dir := range matches {
			if add(dir, src.Name) {
				return out
			}
		}
	}
	return out
}

// installedBinaries returns recorded, the binaries a cluster directory
// says made its data, when they are one of the places LocateBinaries
// looks (another version of PostgreSQL installed beside the newest), and
// what LocateBinaries finds otherwise. A cluster directory is data: the
// bin_dir its cluster.json names is never run unless it is such a place.
func installedBinaries(recorded string) (Binaries, error) {
	return pickInstalled(recorded, filepath.SplitList(os.Getenv("PATH")), pgConfigBindir, binarySources)
}

func pickInstalled(recorded string, pathDirs []string, pgConfig func() string, sources []binarySource) (Binaries, error) {
	if recorded != "" {
		for _, b := range candidateBinaries(pathDirs, pgConfig, sources, false) {
			if filepath.Clean(b.Dir) == filepath.Clean(recorded) {
				return b, nil
			}
		}
	}
	return locateBinaries(pathDirs, pgConfig, sources)
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
