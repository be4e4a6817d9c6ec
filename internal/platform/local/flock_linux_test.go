package local

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFlockHeld: a file is seen locked while a flock is held on it, and
// free once it is released; another file is not.
func TestFlockHeld(t *testing.T) {
	dir := t.TempDir()
	path, other := filepath.Join(dir, ".lock"), filepath.Join(dir, "other")
	for _, p := range []string{path, other} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if held, known := FlockHeld(path); held || !known {
		t.Fatalf("before the lock: held %v known %v", held, known)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := TryLock(f); err != nil {
		t.Fatal(err)
	}
	if held, _ := FlockHeld(path); !held {
		t.Error("locked file not seen held")
	}
	if held, _ := FlockHeld(other); held {
		t.Error("another file seen held")
	}
	f.Close()
	if held, _ := FlockHeld(path); held {
		t.Error("released lock still seen held")
	}
}
