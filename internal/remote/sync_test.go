package remote

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/remote/sshtest"
)

// A directory synchronised over SSH lands under the agent's cache on the
// host; a second sync sends only the changed file and removes the deleted
// one.
func testSyncDir(t *testing.T, n *sshtest.Net) {
	ctx := context.Background()
	s, err := Connect(ctx, hostOf(n, "app1"), Options{KnownHosts: []string{n.KnownHosts}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	local := t.TempDir()
	big := bytes.Repeat([]byte("stackbench"), 100_000) // 1 MB: four chunks
	files := map[string]string{"main.go": "package main\n", "bin/run.sh": "#!/bin/sh\n", "static/big.bin": string(big)}
	for name, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(local, name)), 0o755)
		if err := os.WriteFile(filepath.Join(local, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(local, "bin/run.sh"), 0o755)
	os.Symlink("bin/run.sh", filepath.Join(local, "run"))

	res, err := s.Agent.SyncDir(ctx, local, agent.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The namespaces share our file system: the host's copy can be read
	// here. It is in the test user's cache; remove it after.
	t.Cleanup(func() { os.RemoveAll(res.Dir) })
	if !strings.Contains(res.Dir, "/.cache/stackbench/dirs/") || res.Sent != 3 || res.Files != 3 {
		t.Fatalf("first sync = %+v; want 3 files sent into the agent's cache", res)
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(res.Dir, name))
		if err != nil || string(got) != data {
			t.Fatalf("%s on the host: %d bytes, %v; want %d bytes", name, len(got), err, len(data))
		}
	}
	if fi, err := os.Stat(filepath.Join(res.Dir, "bin/run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("bin/run.sh on the host: %v, %v; want mode 755", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(res.Dir, "run")); err != nil || target != "bin/run.sh" {
		t.Fatalf("the link on the host reads %q, %v", target, err)
	}

	os.WriteFile(filepath.Join(local, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.Remove(filepath.Join(local, "static/big.bin"))
	again, err := s.Agent.SyncDir(ctx, local, agent.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Dir != res.Dir || again.Sent != 1 || again.Files != 2 || again.Removed != 1 {
		t.Fatalf("second sync = %+v; want main.go sent and big.bin removed in %s", again, res.Dir)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "static/big.bin")); err == nil {
		t.Fatal("big.bin is still on the host")
	}
}
