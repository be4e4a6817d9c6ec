package run

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/report"
	"github.com/stackbench/stackbench/internal/run/runtest"
	"github.com/stackbench/stackbench/internal/stats"
)

// tinyApp is a one-file server; work is the SHA-256 rounds per request.
func tinyApp(work string) string {
	return `package main

import (
	"crypto/sha256"
	"net/http"
	"os"
)

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.Sum256([]byte(r.URL.Path))
		for range ` + work + ` {
			sum = sha256.Sum256(sum[:])
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{\"ok\":true}"))
	})
	http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), nil)
}
`
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestTwoRevisionsOfOneAppInOneRun: a branch that burns CPU per request is
// measured against main in one interleaved run, each from a worktree of its
// commit; the report calls the step a loss and names both commits, and the
// user's checkout is left as it was.
func TestTwoRevisionsOfOneAppInOneRun(t *testing.T) {
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The worktrees in a test directory, not the user's cache; Go's own
	// build cache kept, or the standard library is built again for each
	// revision's app (about a minute of a busy 2-core host).
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	repo := filepath.Join(t.TempDir(), "app")
	os.MkdirAll(repo, 0o755)
	gitIn(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module tiny\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "main.go"), []byte(tinyApp("1")), 0o644)
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "fast")
	mainCommit := gitIn(t, repo, "rev-parse", "HEAD")
	gitIn(t, repo, "checkout", "-q", "-b", "slow")
	os.WriteFile(filepath.Join(repo, "main.go"), []byte(tinyApp("4000")), 0o644)
	gitIn(t, repo, "commit", "-q", "-am", "slow")
	slowCommit := gitIn(t, repo, "rev-parse", "HEAD")
	// An uncommitted change in the user's checkout must survive the run.
	os.WriteFile(filepath.Join(repo, "NOTES"), []byte("mine"), 0o644)
	statusBefore := gitIn(t, repo, "status", "--porcelain")

	src := `workload:
  name: tiny
  health: /
  database: none
  cases:
    - {name: hit, path: /hit}
profile: quick
protocol:
  rounds: 6
  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  boot_starts: 0
  gate: off
stacks:
  - name: main
    dir: ` + repo + `
    git: main
    build: go build -o app .
    start: ./app
  - name: branch
    dir: ` + repo + `
    git: HEAD
    build: go build -o app .
    start: ./app
`
	path := writeFile(t, src)
	results := filepath.Join(t.TempDir(), "results")
	dir := filepath.Join(results, "run1")
	if _, err := runFile(t, context.Background(), path, dir, plan.Overrides{Adaptive: new(bool)}, false); err != nil {
		t.Fatalf("run: %v", err)
	}
	m, err := report.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 1 {
		t.Fatalf("steps %+v, want main → branch", m.Steps)
	}
	if st := m.Steps[0]; st.Throughput.Call != stats.CallLoss {
		// A host too busy to run the generator (client_starved windows)
		// leaves the step undecided or invalid, rightly; the commits
		// must still be told apart by what was measured.
		if !slices.ContainsFunc(st.Flagged, func(f string) bool { return strings.Contains(f, "client_starved") }) {
			t.Fatalf("step %+v, want a loss", st)
		}
		from, to := medianThroughput(t, dir, "main"), medianThroughput(t, dir, "branch")
		t.Logf("the host starved the generator (%v): call %s; median throughput main %.0f, branch %.0f req/s", st.Flagged, st.Throughput.Call, from, to)
		if to > from/3 {
			t.Errorf("branch %.0f req/s against main's %.0f: the slow commit was not the one measured", to, from)
		}
	}
	var md bytes.Buffer
	report.WriteMarkdown(&md, m)
	for _, want := range []string{"main at commit " + mainCommit, "HEAD at commit " + slowCommit} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report does not name %q:\n%s", want, md.String())
		}
	}
	// The worktrees are under the user's cache directory, none beside the
	// results or in the repository.
	for _, c := range []string{mainCommit, slowCommit} {
		if got, _ := filepath.Glob(filepath.Join(cache, "stackbench", "worktrees", "*", c[:12], "app")); len(got) != 1 {
			t.Errorf("worktree of %s under %s: %v", c[:12], cache, got)
		}
	}
	if _, err := os.Stat(filepath.Join(results, ".stackbench-worktrees")); err == nil {
		t.Error("worktrees were made beside the results")
	}
	if got := gitIn(t, repo, "status", "--porcelain"); got != statusBefore || gitIn(t, repo, "rev-parse", "HEAD") != slowCommit {
		t.Errorf("the user's checkout changed: status %q (was %q)", got, statusBefore)
	}
	if _, err := os.Stat(filepath.Join(repo, "app")); err == nil {
		t.Error("the build ran in the user's checkout")
	}
}

// medianThroughput is the median throughput of a stack's final windows.
func medianThroughput(t *testing.T, dir, stack string) float64 {
	byKey, _ := runtest.Finals(t, dir)
	var v []float64
	for _, w := range byKey {
		if w.Stack == stack && w.Load != nil {
			v = append(v, w.Load.ThroughputRPS)
		}
	}
	slices.Sort(v)
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}

func TestUnknownRevisionNamedWithGitsMessage(t *testing.T) {
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q")
	src := "workload: {name: tiny, database: none, cases: [{name: hit, path: /hit}]}\nstacks:\n  - name: a\n    dir: " + repo + "\n    git: no-such-branch\n    start: ./app\n"
	_, err := plan.LoadEnv(writeFile(t, src), func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), `:5:10: git: unknown revision "no-such-branch"`) || !strings.Contains(err.Error(), "fatal:") {
		t.Errorf("got %v", err)
	}
}
