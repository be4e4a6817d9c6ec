package fileutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// plantLink makes dir/name a symbolic link to a victim file outside dir
// and returns the victim's path.
func plantLink(t *testing.T, dir, name string) string {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return victim
}

func checkVictim(t *testing.T, victim string) {
	t.Helper()
	b, err := os.ReadFile(victim)
	st, _ := os.Stat(victim)
	if err != nil || string(b) != "precious\n" || st.Mode().Perm() != 0o644 {
		t.Errorf("the victim behind the link was changed: %q, mode %v, %v", b, st.Mode().Perm(), err)
	}
}

func TestWriteInFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	victim := plantLink(t, dir, "file")
	err := WriteIn(dir, "file", []byte("overwritten"), 0o600)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("write through a link: %v, want a refusal naming the link", err)
	}
	checkVictim(t, victim)
	if _, err := OpenIn(dir, "file", os.O_RDWR|os.O_APPEND, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("append through a link: %v", err)
	}
	checkVictim(t, victim)

	// A link in place of a folder on the way.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "logs")); err != nil {
		t.Fatal(err)
	}
	if err := WriteIn(dir, "logs/x.log", []byte("x"), 0o600); err == nil {
		t.Error("wrote through a folder that is a link")
	}
	if err := MkdirIn(dir, "logs/tls", 0o700); err == nil {
		t.Error("made a folder through a folder that is a link")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%d entries written outside through the link", len(entries))
	}
	if err := WriteIn(dir, "../escape", nil, 0o600); err == nil {
		t.Error("wrote outside the directory with ..")
	}
}

func TestOpenInRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skip(err)
	}
	// Write-only: would block forever waiting for a reader without the
	// non-blocking open.
	if _, err := OpenIn(dir, "fifo", os.O_WRONLY|os.O_APPEND, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("write-only FIFO: %v", err)
	}
	if _, err := OpenIn(dir, "fifo", os.O_RDWR, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("read-write FIFO: %v", err)
	}
}

func TestWriteInMakesFoldersAndSetsTheMode(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old"), []byte("a longer old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteIn(dir, "old", []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old")); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	if st, _ := os.Stat(filepath.Join(dir, "old")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 on a file that was 0644", st.Mode().Perm())
	}
	if err := WriteIn(dir, "a/b/c", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "a", "b")); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Errorf("folder made: %v, %v", st, err)
	}
	if err := MkdirIn(dir, "a/b/d", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := MkdirIn(dir, "a/b/d", 0o700); err != nil {
		t.Errorf("again: %v", err)
	}
}

func TestCheckOwnPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, nil, 0o600)
	if err := CheckOwnPrivate(path); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o620)
	if err := CheckOwnPrivate(path); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("group-writable: %v", err)
	}
	os.Chmod(path, 0o600)
	link := filepath.Join(dir, "l")
	os.Symlink(path, link)
	if err := CheckOwnPrivate(link); err == nil {
		t.Error("a link passed")
	}
	if os.Geteuid() == 0 {
		os.Chown(path, 65534, 65534)
		if err := CheckOwnPrivate(path); err == nil || !strings.Contains(err.Error(), "uid 65534") {
			t.Errorf("another user's: %v", err)
		}
	}
}
