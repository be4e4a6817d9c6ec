package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogIsCutWhenAProcessStarts: a stack's log past MaxLogBytes is cut to
// its last KeepLogBytes (from a whole line) when a process of it starts,
// and says so; a small log is left as it is.
func TestLogIsCutWhenAProcessStarts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	line := []byte(strings.Repeat("x", 99) + "\n")
	big := bytes.Repeat(line, (MaxLogBytes+2*KeepLogBytes)/len(line))
	big = append(big, []byte("the last line\n")...)
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, err := openLog(Spec{Name: "app", LogPath: path, Dir: dir, Command: "./app"})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > KeepLogBytes+4096 {
		t.Errorf("the log holds %d bytes after a start, want about %d", len(data), KeepLogBytes)
	}
	if !strings.HasPrefix(string(data), "=== stackbench: this log reached 33 MiB and was cut") || !strings.Contains(string(data), "the last line\n=== stackbench: start app") {
		t.Errorf("the cut log:\n%.200s … %s", data, data[max(0, len(data)-200):])
	}
	small := filepath.Join(dir, "small.log")
	os.WriteFile(small, []byte("hello\n"), 0o644)
	f, _, _ = openLog(Spec{Name: "small", LogPath: small, Dir: dir, Command: "./s"})
	f.Close()
	if data, _ := os.ReadFile(small); !strings.HasPrefix(string(data), "hello\n=== stackbench: start small") {
		t.Errorf("a small log was changed: %q", data)
	}
}
