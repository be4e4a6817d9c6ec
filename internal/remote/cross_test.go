package remote

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSource writes a module named like stackbench's whose
// cmd/stackbench prints version.
func writeSource(t *testing.T, dir, version string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "cmd", "stackbench"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+modulePath+"\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	main := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"" + version + "\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "cmd", "stackbench", "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The cross-built agent follows its source: built again when the source
// changed, though our own binary did not, and reused (not relinked) when
// nothing changed. (It was cached by our own binary's hash, so the edited
// source still got the first build.)
func TestCrossBuildFollowsTheSource(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The cross-build cache in a test directory, not the user's; Go's own
	// build cache kept, or the standard library is built again.
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := func(bin string) string {
		t.Helper()
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatalf("run %s: %v", bin, err)
		}
		return strings.TrimSpace(string(out))
	}

	writeSource(t, src, "agent-v1")
	bin, err := crossBuild(ctx, Local(), src)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(bin); got != "agent-v1" {
		t.Fatalf("first build prints %q", got)
	}
	before, _ := os.Stat(bin)
	time.Sleep(20 * time.Millisecond)
	if again, err := crossBuild(ctx, Local(), src); err != nil || again != bin {
		t.Fatalf("unchanged source: %s, %v", again, err)
	}
	if after, _ := os.Stat(bin); !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("unchanged source relinked the agent (%s, was %s)", after.ModTime(), before.ModTime())
	}

	writeSource(t, src, "agent-v2")
	bin, err = crossBuild(ctx, Local(), src)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(bin); got != "agent-v2" {
		t.Fatalf("after the source changed the agent prints %q; want agent-v2", got)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "*")); len(left) != 1 {
		t.Errorf("cross-build cache holds %v; want the current build alone", left)
	}
}
