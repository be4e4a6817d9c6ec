package stack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
)

// WorktreesDir is the folder, beside a run's results directory, where
// earlier versions kept the worktrees of stacks with git:; they now live
// under the user's cache directory (WorktreeCache).
const WorktreesDir = ".stackbench-worktrees"

// WorktreeCache is where the worktrees of a repository's git: stacks are
// kept, one per commit and reused: under the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS), one folder per repository — never inside
// the user's repository, where they would show in git status and in the
// editor's search.
func WorktreeCache(repo string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(repo))
	return filepath.Join(base, "stackbench", "worktrees", filepath.Base(repo)+"-"+hex.EncodeToString(sum[:4]))
}

// CheckoutAll gives every stack with git: a detached worktree of its
// commit under cacheDir, or under WorktreeCache of its repository when
// cacheDir is "" (made with git worktree add, reused when it is already at
// that commit), and returns the stacks with Dir moved into it. The user's
// checkout is not touched: no branch moves, no file changes.
func CheckoutAll(ctx context.Context, stacks []plan.Stack, cacheDir string, progress func(string)) ([]plan.Stack, error) {
	out := append([]plan.Stack(nil), stacks...)
	for i, s := range out {
		if s.Git == nil {
			continue
		}
		cache := cacheDir
		if cache == "" {
			cache = WorktreeCache(s.Git.Repo)
		}
		wt, made, err := checkout(ctx, s.Git, cache)
		if err != nil {
			return nil, fmt.Errorf("stack %s (git: %s): %w", s.Name, s.Git.Rev, err)
		}
		if made {
			progress(fmt.Sprintf("git: %s: worktree of %s (%s) in %s", s.Name, s.Git.Rev, short(s.Git.Commit), wt))
		}
		out[i].Dir = filepath.Join(wt, filepath.FromSlash(s.Git.Subdir))
	}
	return out, nil
}

// checkout returns the worktree of g's commit, making it when needed.
func checkout(ctx context.Context, g *plan.GitRevision, cacheDir string) (dir string, made bool, err error) {
	dir = filepath.Join(cacheDir, short(g.Commit))
	// The worktree's own top must be dir: a plain folder inside the user's
	// checkout would answer with the checkout's HEAD.
	if top, err := git(ctx, dir, "rev-parse", "--show-toplevel"); err != nil || !sameDir(top, dir) {
		// not a worktree of ours
	} else if head, err := git(ctx, dir, "rev-parse", "HEAD"); err == nil && head == g.Commit {
		if status, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=no"); err == nil && status == "" {
			return dir, false, nil
		}
	}
	// A stale or half-made worktree: remove it and let git forget it.
	os.RemoveAll(dir)
	git(ctx, g.Repo, "worktree", "prune")
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", false, err
	}
	if _, err := git(ctx, g.Repo, "worktree", "add", "--detach", "--force", dir, g.Commit); err != nil {
		return "", false, fmt.Errorf("git worktree add: %w", err)
	}
	return dir, true, nil
}

// git runs git in dir; an error carries git's message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("%s", strings.Join(strings.Fields(msg), " "))
		}
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
