package dx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditRestore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.js")
	orig := "const a = 'x'\nconst b = 'x'\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	e, err := ApplyEdit(path, "'x'", "'y'")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "const a = 'y'\nconst b = 'x'\n" {
		t.Errorf("edited file %q: want the first occurrence replaced", b)
	}
	// A second run finds the edit left in place and refuses.
	if _, err := ApplyEdit(path, "const b = 'x'\nconst c", "never"); err == nil || !strings.Contains(err.Error(), "does not contain") {
		t.Errorf("edit of absent text: %v", err)
	}
	if err := e.Restore(); err != nil {
		t.Fatal(err)
	}
	if err := e.Restore(); err != nil {
		t.Fatalf("second restore: %v", err)
	}
	b, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(b) != orig || st.Mode().Perm() != 0o640 {
		t.Errorf("restored %q mode %v", b, st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestEditRefusesALeftOverEdit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.js")
	if err := os.WriteFile(path, []byte("name: 'Ada L.'"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyEdit(path, "name: 'Ada'", "name: 'Ada L.'"); err == nil || !strings.Contains(err.Error(), "killed run") {
		t.Errorf("got %v, want a refusal naming a killed run", err)
	}
}

func TestEscapeModule(t *testing.T) {
	if got := escapeModule("github.com/HdrHistogram/hdrhistogram-go"); got != "github.com/!hdr!histogram/hdrhistogram-go" {
		t.Errorf("got %s", got)
	}
}

func TestDiskUsageCountsHardLinksOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	u, err := DiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(dir)
	if u.Bytes != 1000+st.Size() || u.Files != 1 {
		t.Errorf("usage %+v, want 1000 bytes + the directory's %d, 1 file", u, st.Size())
	}
}
