package dx

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// Usage is the size of a file or directory tree.
type Usage struct {
	// Bytes is the sum of the apparent sizes of every entry, directories
	// and symbolic links included and hard links counted once: what
	// `du -sb` prints.
	Bytes int64
	// Files counts regular files.
	Files int
}

// DiskUsage measures a file or a directory tree without following
// symbolic links.
func DiskUsage(path string) (Usage, error) {
	var u Usage
	seen := map[[2]uint64]bool{} // device, inode of hard-linked files
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if dev, ino, nlink, ok := local.FileID(info); ok && nlink > 1 && !info.IsDir() {
			key := [2]uint64{dev, ino}
			if seen[key] {
				return nil
			}
			seen[key] = true
		}
		u.Bytes += info.Size()
		if info.Mode().IsRegular() {
			u.Files++
		}
		return nil
	})
	return u, err
}

// Deps is a dependency tree's weight.
type Deps struct {
	// Ecosystem is "npm" or "go".
	Ecosystem string `json:"ecosystem"`
	// Bytes is the tree's size on disk (see Usage.Bytes); for Go, the sum
	// of the module cache directories of the modules listed.
	Bytes int64 `json:"bytes"`
	// Packages counts packages as the ecosystem's own listing does (see
	// NodeModules and GoModules); Counting says how, for the report.
	Packages int    `json:"packages"`
	Counting string `json:"counting"`
	// Missing counts Go modules listed but not in the module cache (not
	// needed by the build, so never downloaded); their bytes are not known.
	Missing int `json:"missing,omitempty"`
}

// NpmCounting says how NodeModules counts packages.
const NpmCounting = "package directories under node_modules (node_modules/<name>, node_modules/@scope/<name>, nested node_modules too) holding a package.json: the entries of npm ls --all --parseable, the project itself excluded"

// NodeModules weighs a node_modules directory and counts its packages: each
// directory directly under a node_modules directory (or under an @scope
// directory there) that holds a package.json, at any depth. That is what
// `npm ls --all --parseable` lists (one line per installed package
// directory, after the project's own line); a package installed at two
// places counts twice, as it weighs twice.
func NodeModules(dir string) (*Deps, error) {
	u, err := DiskUsage(dir)
	if err != nil {
		return nil, err
	}
	d := &Deps{Ecosystem: "npm", Bytes: u.Bytes, Counting: NpmCounting}
	var walk func(nm string) error
	walk = func(nm string) error {
		entries, err := os.ReadDir(nm)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(nm, e.Name())
			if strings.HasPrefix(e.Name(), "@") {
				if err := walk(p); err != nil { // a scope: its entries are packages
					return err
				}
				continue
			}
			if _, err := os.Stat(filepath.Join(p, "package.json")); err == nil {
				d.Packages++
			}
			if st, err := os.Stat(filepath.Join(p, "node_modules")); err == nil && st.IsDir() {
				if err := walk(filepath.Join(p, "node_modules")); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return d, walk(dir)
}

// GoCounting says how GoModules counts packages.
const GoCounting = "modules listed by go list -m all, the main module excluded"

// GoModules runs a Go module list command (go list -m all, or a variant of
// it) in dir and counts its lines after the first (the main module); the
// bytes are the sizes of those modules' directories in the module cache.
func GoModules(ctx context.Context, dir, command string, env []string) (*Deps, error) {
	out, err := goCmd(ctx, dir, env, strings.Fields(command)...)
	if err != nil {
		return nil, err
	}
	cache, err := goCmd(ctx, dir, env, "go", "env", "GOMODCACHE")
	if err != nil {
		return nil, err
	}
	modcache := strings.TrimSpace(cache)
	d := &Deps{Ecosystem: "go", Counting: GoCounting}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		d.Packages++
		path, version := f[0], ""
		if len(f) >= 2 {
			version = f[1]
		}
		if i := strings.Index(line, "=>"); i >= 0 { // a replacement: weigh what is used
			r := strings.Fields(line[i+2:])
			path, version = r[0], ""
			if len(r) >= 2 {
				version = r[1]
			}
		}
		moddir := filepath.Join(modcache, escapeModule(path)+"@"+escapeModule(version))
		if version == "" {
			moddir = path // a local directory replacement
			if !filepath.IsAbs(moddir) {
				moddir = filepath.Join(dir, moddir)
			}
		}
		u, err := DiskUsage(moddir)
		if err != nil {
			d.Missing++
			continue
		}
		d.Bytes += u.Bytes
	}
	return d, nil
}

// escapeModule is the module cache's case encoding: each upper-case letter
// becomes '!' and its lower-case form.
func escapeModule(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// goCmd runs a go command in dir and returns its standard output.
func goCmd(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return string(out), nil
}
