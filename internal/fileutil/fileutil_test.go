package fileutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	var long strings.Builder
	for i := 0; long.Len() < 3*TailBytes; i++ {
		long.WriteString("line of the log, number ")
		long.WriteString(strings.Repeat("x", i%7))
		long.WriteString("\n")
	}
	long.WriteString("the last line\n\n")
	if err := os.WriteFile(path, []byte("before\nafter one\nafter two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Tail(path, int64(len("before\n"))); got != "after one\nafter two" {
		t.Errorf("since an offset: %q", got)
	}
	if got := Tail(path, 1<<20); got != "" {
		t.Errorf("offset past the end: %q", got)
	}
	if got := Tail(filepath.Join(dir, "missing"), 0); got != "" {
		t.Errorf("missing file: %q", got)
	}
	if err := os.WriteFile(path, []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Tail(path, 0)
	if len(got) > TailBytes || !strings.HasSuffix(got, "the last line") || !strings.HasPrefix(got, "line of the log") {
		t.Errorf("long log: %d bytes, starts %q, ends %q", len(got), got[:20], got[len(got)-20:])
	}
}

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	for _, body := range []string{"first, and longer\n", "second\n"} {
		if err := WriteFile(path, []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != body {
			t.Errorf("read back %q, %v; want %q", b, err, body)
		}
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the file alone (no temporary left)", len(entries))
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir"), nil, 0o644); err == nil || !strings.Contains(err.Error(), "write ") {
		t.Errorf("into a missing directory: %v", err)
	}
}
