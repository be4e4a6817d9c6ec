package plan

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// GitRevision is a stack's git: key resolved when the file is loaded.
type GitRevision struct {
	// Rev is the revision as written ("main", "HEAD", "v1.2"); Commit is
	// the commit it named then.
	Rev    string `json:"rev"`
	Commit string `json:"commit"`
	// Repo is the repository's top directory; Subdir is the stack's dir
	// relative to it ("." for the top).
	Repo   string `json:"-"`
	Subdir string `json:"subdir"`
}

// ResolveGit resolves rev in the repository holding dir; the error
// carries git's own message.
func ResolveGit(dir, rev string) (*GitRevision, error) {
	if _, err := gitOutput(dir, "rev-parse", "--show-toplevel"); err != nil {
		return nil, fmt.Errorf("%s is not in a git repository: %w", dir, err)
	}
	commit, err := gitOutput(dir, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("unknown revision %q: %w", rev, err)
	}
	return &GitRevision{Rev: rev, Commit: commit}, nil
}

// gitRevision resolves rev in the repository holding dir, adding a problem
// with git's own message when it cannot.
func (p *parser) gitRevision(n *yaml.Node, dir, rev string) *GitRevision {
	top, err := gitOutput(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		p.addf(n, "git: %s is not in a git repository (%v); remove git: or point dir: into a repository", dir, err)
		return nil
	}
	commit, err := gitOutput(dir, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		p.addf(n, "git: unknown revision %q in %s: %v; write a branch, tag or commit of that repository (git log --oneline shows them)", rev, top, err)
		return nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	sub, err := filepath.Rel(top, real)
	if err != nil || strings.HasPrefix(sub, "..") {
		sub = "."
	}
	return &GitRevision{Rev: rev, Commit: commit, Repo: top, Subdir: filepath.ToSlash(sub)}
}

// gitOutput runs git in dir and returns its trimmed output; an error
// carries git's own message.
func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", gitError(msg)
		}
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// gitError is git's message, on one line.
type gitError string

func (e gitError) Error() string { return strings.Join(strings.Fields(string(e)), " ") }
