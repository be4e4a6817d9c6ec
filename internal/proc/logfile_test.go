package proc

import (
	"os"
	"path/filepath"
	"testing"
)

// A server's log is a new file of the user's own: a symlink planted at
// its path is neither followed nor reused, and the directory is private.
func TestServerLogsArePrivateAndNotPlantable(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, err := PrivateLogDir()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("log directory %s: %v, %v; want mode 0700", dir, fi.Mode(), err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep\n"), 0o600)
	if err := os.Symlink(victim, filepath.Join(dir, "one.1.log")); err != nil {
		t.Fatal(err)
	}
	path, err := CreatePrivateLog(dir, "one.1")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "one.1.2.log") {
		t.Errorf("log at %s; want a new file beside the planted link", path)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("log %s: %v, %v; want a regular file, mode 0600", path, fi.Mode(), err)
	}
	if _, err := CreatePrivateLog(dir, "../x"); err == nil {
		t.Error("a log name with a path was accepted")
	}

	// A stack's log that is a symlink is refused, not appended through.
	s := serverSpec(t)
	s.LogPath = filepath.Join(t.TempDir(), "stack.log")
	if err := os.Symlink(victim, s.LogPath); err != nil {
		t.Fatal(err)
	}
	if p, err := Start(t.Context(), s); err == nil {
		p.Stop(0)
		t.Error("a stack started with its log a planted symlink")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}
}
