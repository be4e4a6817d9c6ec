package examples

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// TestEveryExampleIsChecked fails when a directory here has a
// stackbench.yaml that the parity test does not know, or the other way
// round, so that no example escapes CI.
func TestEveryExampleIsChecked(t *testing.T) {
	files, err := filepath.Glob("*/stackbench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var dirs, listed []string
	for _, f := range files {
		dirs = append(dirs, filepath.Dir(f))
	}
	for _, ex := range examples {
		listed = append(listed, ex.name)
	}
	listed = append(append(append(listed, ownApps...), wireExamples...), mixExamples...)
	slices.Sort(dirs)
	slices.Sort(listed)
	if !slices.Equal(dirs, listed) {
		t.Errorf("directories with a stackbench.yaml: %v; the examples list in examples_test.go: %v; add the new one there", dirs, listed)
	}
}

// TestExamplesInstallFromLockfiles fails when an example cannot be installed
// exactly: an npm project without its committed package-lock.json, a lockfile
// that no longer matches package.json, a dependency not pinned to one
// version, a stack of the example whose build does not run the install step,
// or a README that does not name it.
func TestExamplesInstallFromLockfiles(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			f, err := plan.Load(filepath.Join(ex.name, "stackbench.yaml"))
			if err != nil {
				t.Fatalf("%s/stackbench.yaml: %v", ex.name, err)
			}
			readme, err := os.ReadFile(filepath.Join(ex.name, "README.md"))
			if err != nil {
				t.Errorf("%s has no README.md naming its install command: %v", ex.name, err)
			}
			here, err := filepath.Abs(".")
			if err != nil {
				t.Fatal(err)
			}
			steps := map[string]string{} // install step by directory, each checked once
			for _, s := range f.Stacks {
				rel, err := filepath.Rel(here, s.Dir)
				if err != nil || strings.HasPrefix(rel, "..") {
					continue // a Go reference server under apps/
				}
				install, seen := steps[s.Dir]
				if !seen {
					install = installStep(t, s.Dir)
					steps[s.Dir] = install
				}
				if install == "" {
					if seen {
						continue
					}
					t.Errorf("stack %s: %s has neither package.json with package-lock.json nor install.sh: nothing says how to install it", s.Name, rel)
					continue
				}
				if !strings.Contains(s.Build, install) {
					t.Errorf("stack %s builds with %q; its build must run the install step %q", s.Name, s.Build, install)
				}
				if readme != nil && !strings.Contains(string(readme), install) {
					t.Errorf("%s/README.md does not name the install command %q", ex.name, install)
				}
			}
		})
	}
}

// installStep is the command that installs the stack directory dir: npm ci
// for an npm project (whose lockfile it checks), sh install.sh for a
// directory of system packages, or "" when there is none.
func installStep(t *testing.T, dir string) string {
	t.Helper()
	pkgPath := filepath.Join(dir, "package.json")
	if _, err := os.Stat(pkgPath); err == nil {
		checkLockfile(t, dir)
		return "npm ci"
	}
	if _, err := os.Stat(filepath.Join(dir, "install.sh")); err == nil {
		return "sh install.sh"
	}
	return ""
}

// npmPackage is the part of package.json, and of package-lock.json's root
// entry, that must agree.
type npmPackage struct {
	Dependencies    map[string]string `json:"dependencies"`
	DevDependencies map[string]string `json:"devDependencies"`
}

// checkLockfile fails unless dir's package-lock.json exists, is of a
// version npm ci installs exactly (2 or 3), and lists the same direct
// dependencies as package.json, each pinned to one version.
func checkLockfile(t *testing.T, dir string) {
	t.Helper()
	var pkg npmPackage
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	var lock struct {
		LockfileVersion int                   `json:"lockfileVersion"`
		Packages        map[string]npmPackage `json:"packages"`
	}
	lockPath := filepath.Join(dir, "package-lock.json")
	if _, err := os.Stat(lockPath); err != nil {
		t.Errorf("%s: no package-lock.json: run npm install there and commit the lockfile, so that npm ci installs exactly it", dir)
		return
	}
	readJSON(t, lockPath, &lock)
	if lock.LockfileVersion < 2 {
		t.Errorf("%s: lockfileVersion %d; regenerate it with npm 7 or later", lockPath, lock.LockfileVersion)
	}
	root := lock.Packages[""]
	if !reflect.DeepEqual(nonNil(root.Dependencies), nonNil(pkg.Dependencies)) ||
		!reflect.DeepEqual(nonNil(root.DevDependencies), nonNil(pkg.DevDependencies)) {
		t.Errorf("%s does not match package.json (lockfile %v %v, package.json %v %v); run npm install and commit both",
			lockPath, root.Dependencies, root.DevDependencies, pkg.Dependencies, pkg.DevDependencies)
	}
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
		for name, version := range deps {
			if strings.ContainsAny(version, "^~<>=*x ") || version == "" || version == "latest" {
				t.Errorf("%s/package.json: %s %q; pin one version, the one its README names", dir, name, version)
			}
		}
	}
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
