package agent

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeFile writes a file of the test's tree, making its directory.
func writeFile(t *testing.T, path string, data []byte, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// treeOf describes a tree, one line per path: kind, mode, and content or
// link target; names matching skip are left out.
func treeOf(t *testing.T, root string, skip []string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if excluded(d.Name(), skip) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			lines = append(lines, fmt.Sprintf("%s link -> %s", rel, target))
		case info.IsDir():
			lines = append(lines, fmt.Sprintf("%s dir %o", rel, info.Mode().Perm()))
		default:
			data, _ := os.ReadFile(p)
			lines = append(lines, fmt.Sprintf("%s file %o %d %s", rel, info.Mode().Perm(), len(data), fileSum(p)[:12]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// A directory is copied whole the first time; then only a changed file is
// sent, a deleted one removed, a mode change and a link change applied,
// and the excluded names neither sent nor removed.
func TestSyncDir(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	local, remote := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	big := bytes.Repeat([]byte("0123456789abcdef"), (2*syncChunkBytes+1000)/16) // three chunks
	writeFile(t, filepath.Join(local, "main.go"), []byte("package main\n"), 0o644)
	writeFile(t, filepath.Join(local, "run.sh"), []byte("#!/bin/sh\nexec ./server\n"), 0o755)
	writeFile(t, filepath.Join(local, "static", "big.bin"), big, 0o644)
	writeFile(t, filepath.Join(local, "static", "old.txt"), []byte("old"), 0o600)
	writeFile(t, filepath.Join(local, "empty"), nil, 0o644)
	writeFile(t, filepath.Join(local, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	writeFile(t, filepath.Join(local, "web", "node_modules", "x", "index.js"), []byte("module.exports = 1\n"), 0o644)
	if err := os.Symlink("static/big.bin", filepath.Join(local, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent/outside", filepath.Join(local, "dangling")); err != nil {
		t.Fatal(err)
	}

	res, err := s.client.SyncDir(ctx, local, SyncOptions{Dir: remote})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dir != remote || res.Files != 5 || res.Sent != 5 || res.SentBytes != int64(len(big)+13+24+3) || res.Removed != 0 {
		t.Fatalf("first sync = %+v; want 5 files of 5 sent to %s", res, remote)
	}
	if got, want := treeOf(t, remote, []string{syncMarker}), treeOf(t, local, DefaultExclude); got != want {
		t.Fatalf("after the first sync the copy is\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(remote, ".git")); err == nil {
		t.Fatal(".git was sent")
	}

	// Nothing changed: nothing sent.
	if res, err = s.client.SyncDir(ctx, local, SyncOptions{Dir: remote}); err != nil || res.Sent != 0 || res.Removed != 0 || res.Files != 5 {
		t.Fatalf("second sync = %+v, %v; want nothing sent or removed", res, err)
	}

	// Changes: one file's content, one's mode only, a file deleted, a
	// link retargeted, a directory replaced by a file; and the host has
	// a node_modules of its build and a stray file.
	writeFile(t, filepath.Join(local, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	if err := os.Chmod(filepath.Join(local, "run.sh"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(local, "static", "old.txt"))
	os.Remove(filepath.Join(local, "link"))
	if err := os.Symlink("main.go", filepath.Join(local, "link")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(local, "web"))
	writeFile(t, filepath.Join(local, "web"), []byte("now a file"), 0o644)
	writeFile(t, filepath.Join(remote, "node_modules", "dep", "index.js"), []byte("built on the host"), 0o644)
	writeFile(t, filepath.Join(remote, "static", "stray"), []byte("stray"), 0o644)

	res, err = s.client.SyncDir(ctx, local, SyncOptions{Dir: remote})
	if err != nil {
		t.Fatal(err)
	}
	// Sent: main.go and web. Removed: old.txt and stray.
	if res.Sent != 2 || res.Files != 5 || res.Removed != 2 {
		t.Fatalf("third sync = %+v; want main.go and web sent, old.txt and stray removed", res)
	}
	if got, want := treeOf(t, remote, append([]string{syncMarker}, DefaultExclude...)), treeOf(t, local, DefaultExclude); got != want {
		t.Fatalf("after the third sync the copy is\n%s\nwant\n%s", got, want)
	}
	if data, err := os.ReadFile(filepath.Join(remote, "node_modules", "dep", "index.js")); err != nil || string(data) != "built on the host" {
		t.Fatalf("the host's own node_modules was touched: %q, %v", data, err)
	}
	if fi, err := os.Stat(filepath.Join(remote, "run.sh")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("run.sh on the host: %v, %v; want mode 700", fi, err)
	}

	// With nothing excluded, .git is sent and node_modules on the host,
	// not in the local tree, is removed.
	res, err = s.client.SyncDir(ctx, local, SyncOptions{Dir: remote, Exclude: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := treeOf(t, remote, []string{syncMarker}), treeOf(t, local, nil); got != want || res.Sent != 1 || res.Removed != 1 {
		t.Fatalf("sync excluding nothing = %+v; the copy is\n%s\nwant\n%s", res, got, want)
	}
}

// Without a Dir the copy goes under the agent's cache, named after the
// local directory, and the same directory comes back to the same place.
func TestSyncDirIntoTheCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "my app")
	writeFile(t, filepath.Join(local, "main.go"), []byte("package main\n"), 0o644)
	res, err := s.client.SyncDir(ctx, local, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := SyncKey(local)
	if want := filepath.Join(home, ".cache", "stackbench", "dirs", key); res.Dir != want || !strings.HasPrefix(key, "my_app-") {
		t.Fatalf("copy in %s (key %s); want %s", res.Dir, key, want)
	}
	again, err := s.client.SyncDir(ctx, local, SyncOptions{})
	if err != nil || again.Dir != res.Dir || again.Sent != 0 {
		t.Fatalf("second sync = %+v, %v; want the same dir and nothing sent", again, err)
	}
}

// The agent refuses paths out of the directory and content that does not
// match the manifest, and leaves no temporary file behind.
func TestSyncRefusals(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	remote := t.TempDir()
	open := func() string {
		resp, err := s.client.call(ctx, Request{Op: OpSyncOpen, Sync: &SyncRequest{Dir: remote}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Sync.Token
	}
	tok := open()
	for _, p := range []string{"../escape", "/etc/passwd", "a/../../b", "", "./a"} {
		_, err := s.client.call(ctx, Request{Op: OpSyncManifest, Sync: &SyncRequest{Token: tok, Entries: []SyncEntry{{Path: p, Kind: SyncFile}}}})
		if err == nil || !strings.Contains(err.Error(), "not a clean path") {
			t.Errorf("path %q: %v; want a refusal", p, err)
		}
	}
	if _, err := s.client.call(ctx, Request{Op: OpSyncOpen, Sync: &SyncRequest{Dir: remote}}); err == nil || !strings.Contains(err.Error(), "already being synced") {
		t.Fatalf("a second sync of one directory = %v", err)
	}
	if _, err := s.client.call(ctx, Request{Op: OpSyncClose, Sync: &SyncRequest{Token: tok, Abort: true}}); err != nil {
		t.Fatal(err)
	}

	tok = open()
	e := SyncEntry{Path: "f", Kind: SyncFile, Mode: 0o644, Size: 3, SHA256: strings.Repeat("0", 64)}
	resp, err := s.client.call(ctx, Request{Op: OpSyncManifest, Sync: &SyncRequest{Token: tok, Entries: []SyncEntry{e}}})
	if err != nil || len(resp.Sync.Want) != 1 {
		t.Fatalf("manifest = %+v, %v; want f asked for", resp.Sync, err)
	}
	_, err = s.client.call(ctx, Request{Op: OpSyncChunk, Sync: &SyncRequest{Token: tok, Path: "f", Data: []byte("abc"), Last: true}})
	if err == nil || !strings.Contains(err.Error(), "changed while it was sent") {
		t.Fatalf("content unlike the manifest = %v; want a refusal", err)
	}
	if _, err := s.client.call(ctx, Request{Op: OpSyncClose, Sync: &SyncRequest{Token: tok}}); err == nil || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("close with a file missing = %v; want a refusal", err)
	}
	entries, _ := os.ReadDir(remote)
	if len(entries) != 1 || entries[0].Name() != syncMarker {
		t.Fatalf("the directory holds %v after refused syncs; want only the sync's mark", entries)
	}
	if _, err := s.client.SyncDir(ctx, filepath.Join(remote, "missing"), SyncOptions{Dir: remote}); err == nil {
		t.Fatal("a sync of a missing directory succeeded")
	}

	// A directory the sync did not make, with files in it, is not
	// touched: the sync would remove them.
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "notes.txt"), []byte("mine"), 0o644)
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "main.go"), []byte("package main\n"), 0o644)
	if _, err := s.client.SyncDir(ctx, local, SyncOptions{Dir: home}); err == nil || !strings.Contains(err.Error(), "not made by a sync") {
		t.Fatalf("a sync into a directory of files = %v; want a refusal", err)
	}
	if data, err := os.ReadFile(filepath.Join(home, "notes.txt")); err != nil || string(data) != "mine" {
		t.Fatalf("notes.txt after a refused sync: %q, %v", data, err)
	}
}

// A session that ends in the middle of a file leaves no temporary file.
func TestSyncLostSessionLeavesNoTemporaryFile(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	remote := t.TempDir()
	resp, err := s.client.call(ctx, Request{Op: OpSyncOpen, Sync: &SyncRequest{Dir: remote}})
	if err != nil {
		t.Fatal(err)
	}
	tok := resp.Sync.Token
	e := SyncEntry{Path: "f", Kind: SyncFile, Mode: 0o644, Size: 6, SHA256: strings.Repeat("0", 64)}
	if _, err := s.client.call(ctx, Request{Op: OpSyncManifest, Sync: &SyncRequest{Token: tok, Entries: []SyncEntry{e}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.client.call(ctx, Request{Op: OpSyncChunk, Sync: &SyncRequest{Token: tok, Path: "f", Data: []byte("abc")}}); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(remote); len(entries) != 2 || !strings.HasPrefix(entries[0].Name(), ".sbsync-") {
		t.Fatalf("mid-file the directory holds %v; want the mark and one temporary file", entries)
	}
	s.stdin.Close()
	if err := <-s.served; err != nil {
		t.Fatal(err)
	}
	s.served <- nil // for the cleanup
	if entries, _ := os.ReadDir(remote); len(entries) != 1 || entries[0].Name() != syncMarker {
		t.Fatalf("after the session ended the directory holds %v; want only the sync's mark", entries)
	}
}

// What stackbench writes and a project's secrets stay on this machine:
// results/ at the top, .stackbench (the development cluster's password),
// .env files, whatever exclusions the caller gives (the run gives its
// own, to send node_modules), and what .stackbenchignore names.
func TestSyncLeavesOutResultsAndSecrets(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	for _, exclude := range [][]string{nil, {".git", ".venv"}, {}} {
		local, remote := t.TempDir(), filepath.Join(t.TempDir(), "copy")
		writeFile(t, filepath.Join(local, "main.go"), []byte("package main\n"), 0o644)
		writeFile(t, filepath.Join(local, "results", "20261202-1900", "journal.jsonl"), []byte("{}\n"), 0o600)
		writeFile(t, filepath.Join(local, ".stackbench", "db", "cluster.json"), []byte(`{"password":"x"}`), 0o600)
		writeFile(t, filepath.Join(local, ".env"), []byte("API_KEY=sk-live\n"), 0o600)
		writeFile(t, filepath.Join(local, "web", ".env.local"), []byte("API_KEY=sk-live\n"), 0o600)
		writeFile(t, filepath.Join(local, "pkg", "results", "r.go"), []byte("package results\n"), 0o644)
		writeFile(t, filepath.Join(local, IgnoreFile), []byte("# big local data\n\n*.sqlite\n/data/raw/\n"), 0o644)
		writeFile(t, filepath.Join(local, "pkg", "cache.sqlite"), []byte("x"), 0o644)
		writeFile(t, filepath.Join(local, "data", "raw", "dump.csv"), []byte("x"), 0o644)
		writeFile(t, filepath.Join(local, "data", "seed.csv"), []byte("x"), 0o644)
		res, err := s.client.SyncDir(ctx, local, SyncOptions{Dir: remote, Exclude: exclude})
		if err != nil {
			t.Fatal(err)
		}
		if res.Files != 4 {
			t.Errorf("exclude %q: %d files sent, want main.go, pkg/results/r.go, data/seed.csv and %s", exclude, res.Files, IgnoreFile)
		}
		for _, gone := range []string{"results", ".stackbench", ".env", "web/.env.local", "pkg/cache.sqlite", "data/raw"} {
			if _, err := os.Lstat(filepath.Join(remote, gone)); err == nil {
				t.Errorf("exclude %q: %s reached the host", exclude, gone)
			}
		}
		for _, kept := range []string{"pkg/results/r.go", "data/seed.csv"} {
			if _, err := os.Stat(filepath.Join(remote, kept)); err != nil {
				t.Errorf("exclude %q: %s was left out: %v", exclude, kept, err)
			}
		}
	}
}

// A pattern .stackbenchignore cannot hold is refused with its line.
func TestSyncIgnoreFileBadPattern(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	local := t.TempDir()
	writeFile(t, filepath.Join(local, IgnoreFile), []byte("ok\n[z-\n"), 0o644)
	_, err := s.client.SyncDir(ctx, local, SyncOptions{Dir: filepath.Join(t.TempDir(), "copy")})
	if err == nil || !strings.Contains(err.Error(), IgnoreFile+":2") {
		t.Fatalf("a bad pattern: %v; want its file and line", err)
	}
}

// Synced modes keep to the host's umask: a file everyone may write here
// is not made so there when the agent's umask says otherwise.
func TestSyncHonoursTheHostsUmask(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	if _, err := s.client.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	local, remote := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	writeFile(t, filepath.Join(local, "open.txt"), []byte("x"), 0o666)
	os.Chmod(filepath.Join(local, "open.txt"), 0o666)
	if _, err := s.client.SyncDir(ctx, local, SyncOptions{Dir: remote}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(remote, "open.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fs.FileMode(0o666) &^ hostUmask(); fi.Mode().Perm() != want {
		t.Errorf("synced mode %v, want %v (umask %04o)", fi.Mode().Perm(), want, hostUmask())
	}
}
