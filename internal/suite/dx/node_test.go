package dx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// requireNode skips a test that needs node and npm when they are missing,
// except in CI (CI set to anything), where a missing Node.js fails it.
func requireNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s not on PATH, and CI is set: install Node.js 20 or later with npm", tool)
			}
			t.Skipf("%s not on PATH: install Node.js 20 or later with npm to run this test", tool)
		}
	}
}

// copyExample copies examples/<name> (without node_modules) to a temporary
// directory, so that the test installs and edits a tree of its own.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := copySource(name, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copySource copies examples/<name> to dst, leaving out node_modules: a
// checkout's may be hundreds of megabytes, or being reinstalled by the
// examples package's tests at the same time.
func copySource(name, dst string) error {
	src := filepath.Join("..", "..", "..", "examples", name)
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && d.Name() == "node_modules":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("copy %s: not a regular file or directory", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// The node tests run side by side: they wait on the npm registry and on
// node's restarts far more than on a CPU, and none judges a duration
// beyond a reload's 30 s bound.
func TestNodeInstallAndDeps(t *testing.T) {
	t.Parallel()
	requireNode(t)
	for _, name := range []string{"express-pg", "fastify-pg"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := copyExample(t, name)
			target := Target{
				Name: name, Dir: dir, Rounds: 1,
				Install: "npm ci --omit=dev --no-audit --no-fund --cache .npm-cache",
				Cold:    []string{filepath.Join(dir, "node_modules"), filepath.Join(dir, ".npm-cache")},
				DepsDir: filepath.Join(dir, "node_modules"),
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res, err := Run(ctx, []Target{target}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Targets[0]
			if tr.Error != "" {
				t.Fatal(tr.Error)
			}
			if tr.Install == nil || tr.Install.Cold == nil || tr.Install.Warm == nil || tr.Install.Cold.N != 1 || tr.Install.Warm.N != 1 {
				t.Fatalf("install timing %+v: want one cold and one warm figure", tr.Install)
			}
			t.Logf("install cold %s, warm %s", tr.Install.Cold.Median, tr.Install.Warm.Median)
			du := duBytes(t, filepath.Join(dir, "node_modules"))
			if rel := math.Abs(float64(tr.Deps.Bytes-du)) / float64(du); rel > 0.05 {
				t.Errorf("deps %d bytes, du -sb %d: %.1f %% apart, want within 5 %%", tr.Deps.Bytes, du, 100*rel)
			}
			if want := npmLsCount(t, dir); tr.Deps.Packages != want {
				t.Errorf("deps %d packages, npm ls --all --parseable lists %d", tr.Deps.Packages, want)
			}
			t.Logf("deps %d bytes (du -sb %d), %d packages", tr.Deps.Bytes, du, tr.Deps.Packages)
		})
	}
}

// duBytes is `du -sb path`.
func duBytes(t *testing.T, path string) int64 {
	out, err := exec.Command("du", "-sb", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// npmLsCount is the number of packages npm itself lists: the distinct
// lines of `npm ls --all --parseable --omit=dev` after the project's own.
func npmLsCount(t *testing.T, dir string) int {
	cmd := exec.Command("npm", "ls", "--all", "--parseable", "--omit=dev")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm ls: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" && line != dir {
			seen[line] = true
		}
	}
	return len(seen)
}

// installed is an example copy whose node_modules is a link to the
// example's dependencies, installed once for the package's tests
// (npm ci, 5–10 s and as many CPU-seconds): the reload tests edit and
// restore only their own copy's sources.
func installed(t *testing.T, name string) string {
	t.Helper()
	modules, err := installOnce(name)()
	if err != nil {
		t.Fatal(err)
	}
	dir := copyExample(t, name)
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	installsMu sync.Mutex
	installs   = map[string]func() (string, error){}
	// installsDir holds the shared installs; TestMain removes it.
	installsDir string
)

// installOnce returns the function that runs npm ci in a copy of the
// example the first time it is called and returns its node_modules.
func installOnce(name string) func() (string, error) {
	installsMu.Lock()
	defer installsMu.Unlock()
	if f, ok := installs[name]; ok {
		return f
	}
	f := sync.OnceValues(func() (string, error) {
		dir := filepath.Join(installsDir, name)
		if err := copySource(name, dir); err != nil {
			return "", err
		}
		cmd := exec.Command("npm", "ci", "--omit=dev", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm ci in a copy of examples/%s: %v\n%s", name, err, out)
		}
		return filepath.Join(dir, "node_modules"), nil
	})
	installs[name] = f
	return f
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stackbench-dx-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	installsDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// microReload is a reload of the example's micro workload: an edit of the
// user route's name, under node --watch.
func microReload(dir, find, replace string, timeout time.Duration) Target {
	return Target{
		Name: "express-pg", Dir: dir, Rounds: 2,
		Env: []string{"STACKBENCH_WORKLOAD=micro", "NODE_ENV=production"},
		Reload: &Reload{
			Start: "node --watch server.js", HealthPath: "/health", Path: "/users/1", BootTimeout: 30 * time.Second,
			File: filepath.Join(dir, "micro.js"), Find: find, Replace: replace, Timeout: timeout,
		},
	}
}

func TestNodeWatchReload(t *testing.T) {
	t.Parallel()
	requireNode(t)
	dir := installed(t, "express-pg")
	before, err := os.ReadFile(filepath.Join(dir, "micro.js"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), []Target{microReload(dir, "name: 'Ada'", "name: 'Ada L.'", 30*time.Second)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Targets[0]
	if tr.Error != "" {
		t.Fatal(tr.Error)
	}
	if tr.Reload == nil || tr.Reload.N != 2 || tr.Reload.Median <= 0 || tr.Reload.Median > 30*time.Second {
		t.Fatalf("reload %+v", tr.Reload)
	}
	t.Logf("node --watch reload: median %s of %v", tr.Reload.Median, tr.Reload.Samples)
	after, err := os.ReadFile(filepath.Join(dir, "micro.js"))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("micro.js differs after the suite (err %v)", err)
	}
}

func TestNodeWatchReloadInterrupted(t *testing.T) {
	t.Parallel()
	requireNode(t)
	dir := installed(t, "express-pg")
	file := filepath.Join(dir, "micro.js")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// An edit of a comment: node restarts, the answer never changes, so the
	// suite is still polling when the context is cancelled.
	target := microReload(dir, "// The micro workload", "// The edited micro workload", time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	edited := make(chan bool, 1)
	go func() {
		// Cancel once the edit is on disk, i.e. in the middle of the poll.
		for ctx.Err() == nil {
			if b, err := os.ReadFile(file); err == nil && bytes.Contains(b, []byte("edited micro")) {
				time.Sleep(200 * time.Millisecond)
				edited <- true
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err = Run(ctx, []Target{target}, Options{})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	select {
	case <-edited:
	default:
		t.Fatal("the context was cancelled before the edit was seen on disk")
	}
	after, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("micro.js differs after the interrupted reload (err %v):\n%s", err, after)
	}
}
