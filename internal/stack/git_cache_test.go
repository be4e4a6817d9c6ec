package stack

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// TestWorktreesLiveInTheUserCache: the worktree of a git: stack is made
// under the user's cache directory, one folder per repository, and the
// repository itself gains no file.
func TestWorktreesLiveInTheUserCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	repo := t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "one")
	commit := git("rev-parse", "HEAD")
	top := git("rev-parse", "--show-toplevel")
	stacks := []plan.Stack{{Name: "base", Dir: repo, Git: &plan.GitRevision{Rev: "main", Commit: commit, Repo: top, Subdir: "."}}}
	out, err := CheckoutAll(context.Background(), stacks, "", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(WorktreeCache(top), commit[:12])
	if !strings.HasPrefix(want, filepath.Join(cache, "stackbench", "worktrees")) || out[0].Dir != want {
		t.Errorf("worktree in %s, want %s under %s", out[0].Dir, want, cache)
	}
	if _, err := os.Stat(filepath.Join(out[0].Dir, "main.go")); err != nil {
		t.Errorf("the worktree lacks the commit's file: %v", err)
	}
	if status := git("status", "--porcelain", "--ignored"); status != "" {
		t.Errorf("the repository gained files: %q", status)
	}
}
