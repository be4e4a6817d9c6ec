package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildInfoString(t *testing.T) {
	for _, c := range []struct {
		b    BuildInfo
		want string
	}{
		{BuildInfo{Version: "v1.2.0"}, "v1.2.0"},
		{BuildInfo{Version: "v0.0.0-20261201150045-82363f3a3196+dirty", Revision: "82363f3a319609df2b7cd4622e8b534d676fcc9d", Time: "2026-12-01T15:00:45Z", Modified: true}, "v0.0.0-20261201150045-82363f3a3196+dirty 2026-12-01T15:00:45Z"},
		{BuildInfo{Version: "(devel)", Revision: "8cc7c09c821a9bb14a6e1785938d115cea5fc1c6", Time: "2026-12-01T05:03:39Z"}, "(devel) 8cc7c09c821a 2026-12-01T05:03:39Z"},
		{BuildInfo{Version: "(devel)", Revision: "8cc7c09c821a9bb1", Time: "2026-12-01T05:03:39Z", Modified: true}, "(devel) 8cc7c09c821a+modified 2026-12-01T05:03:39Z"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}

// A binary built with go build in a git checkout prints the commit it was
// built from. The test copies the module's source into a fresh repository
// (a git worktree's .git is a file, which go build does not stamp), commits
// it and builds it there with VCS stamping on (the machine may turn it off
// in GOFLAGS).
func TestVersionPrintsTheRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds stackbench: not in -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	for _, p := range []string{"go.mod", "go.sum", "cmd", "internal"} {
		if out, err := exec.Command("cp", "-r", filepath.Join(root, p), repo).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v\n%s", p, err, out)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "snapshot")
	rev := git("rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "stackbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/stackbench")
	build.Dir = repo
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", arg, err, out)
		}
		if want := "stackbench v0.0.0-"; !strings.HasPrefix(string(out), want) || !strings.Contains(strings.SplitN(string(out), "\n", 2)[0], rev[:12]) || !strings.Contains(string(out), "  revision  "+rev+"\n") || !strings.Contains(string(out), "  modified  false\n") {
			t.Errorf("stackbench %s printed:\n%s\nwant it to start %q and name revision %s", arg, out, want, rev)
		}
	}
}
