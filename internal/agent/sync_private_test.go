package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A results directory anywhere in the tree (it holds a journal and its
// lock, and may hold TLS keys) stays on this machine, and so do .envrc,
// .npmrc and SSH keys; a source file whose name begins with id_, and a
// lone journal.jsonl of the app's own, are sent. A nested results
// directory an earlier sync left on the host is removed there.
func TestSyncLeavesOutNestedResultsAndKeys(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	local, remote := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	writeFile(t, filepath.Join(local, "main.go"), []byte("package main\n"), 0o644)
	run := filepath.Join(local, "bench", "out", "20261206-1700")
	writeFile(t, filepath.Join(run, "journal.jsonl"), []byte("{}\n"), 0o600)
	writeFile(t, filepath.Join(run, ".lock"), []byte("pid 1\n"), 0o600)
	writeFile(t, filepath.Join(run, "tls", "key.pem"), []byte("-----BEGIN PRIVATE KEY-----\n"), 0o600)
	writeFile(t, filepath.Join(local, ".envrc"), []byte("export API_KEY=sk-live\n"), 0o600)
	writeFile(t, filepath.Join(local, "web", ".npmrc"), []byte("//registry.npmjs.org/:_authToken=npm_x\n"), 0o600)
	writeFile(t, filepath.Join(local, "deploy", "id_ed25519"), []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600)
	writeFile(t, filepath.Join(local, "deploy", "id_rsa"), []byte("-----BEGIN RSA PRIVATE KEY-----\n"), 0o600)
	writeFile(t, filepath.Join(local, "deploy", "id_ecdsa.pub"), []byte("ecdsa-sha2-nistp256 AAAA\n"), 0o644)
	writeFile(t, filepath.Join(local, "pkg", "id_generator.go"), []byte("package pkg\n"), 0o644)
	writeFile(t, filepath.Join(local, "pkg", "log", "journal.jsonl"), []byte("{}\n"), 0o644)
	res, err := s.client.SyncDir(ctx, local, SyncOptions{Dir: remote})
	if err != nil {
		t.Fatal(err)
	}
	// What an earlier sync, before these rules, left on the host: the
	// next sync removes it.
	writeFile(t, filepath.Join(remote, "bench", "out", "20261206-1700", "tls", "key.pem"), []byte("x"), 0o600)
	if _, err := s.client.SyncDir(ctx, local, SyncOptions{Dir: remote}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"bench/out/20261206-1700", ".envrc", "web/.npmrc", "deploy/id_ed25519", "deploy/id_rsa", "deploy/id_ecdsa.pub"} {
		if _, err := os.Lstat(filepath.Join(remote, gone)); err == nil {
			t.Errorf("%s is on the host", gone)
		}
	}
	for _, kept := range []string{"main.go", "pkg/id_generator.go", "pkg/log/journal.jsonl", "bench/out"} {
		if _, err := os.Lstat(filepath.Join(remote, kept)); err != nil {
			t.Errorf("%s was left out: %v", kept, err)
		}
	}
	if res.Files != 3 {
		t.Errorf("%d files sent, want main.go, pkg/id_generator.go and pkg/log/journal.jsonl", res.Files)
	}
}
