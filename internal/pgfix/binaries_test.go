package pgfix

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindBinariesMissing(t *testing.T) {
	_, err := findBinaries([]string{t.TempDir()}, []string{filepath.Join(t.TempDir(), "*", "bin")})
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("err = %v, want ErrNoBinaries", err)
	}
	for _, hint := range []string{"apt-get install postgresql", "brew install postgresql@15", "--database-url"} {
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("error %q does not mention %q", err, hint)
		}
	}
}

func TestFindBinariesPrefersPathThenNewest(t *testing.T) {
	root := t.TempDir()
	fake := func(dir string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range serverBinaries {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	v9 := fake(filepath.Join(root, "lib", "9", "bin"))
	v16 := fake(filepath.Join(root, "lib", "16", "bin"))
	fake(filepath.Join(root, "lib", "12", "bin"))
	incomplete := filepath.Join(root, "lib", "17", "bin")
	os.MkdirAll(incomplete, 0o755)
	os.WriteFile(filepath.Join(incomplete, "initdb"), nil, 0o755)
	glob := []string{filepath.Join(root, "lib", "*", "bin")}

	if got, err := findBinaries(nil, glob); err != nil || got != v16 {
		t.Errorf("newest: got %q, %v; want %q", got, err, v16)
	}
	if got, err := findBinaries([]string{incomplete, v9}, glob); err != nil || got != v9 {
		t.Errorf("PATH first: got %q, %v; want %q", got, err, v9)
	}
}

func TestFindBinariesOnThisMachine(t *testing.T) {
	dir, err := FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	if !hasServerBinaries(dir) {
		t.Errorf("FindBinaries() = %q without initdb, pg_ctl and postgres", dir)
	}
}

func TestMajorVersion(t *testing.T) {
	for line, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)": "15",
		"postgres (PostgreSQL) 17.2":                           "17",
		"postgres (PostgreSQL) 16beta1":                        "16",
		"postgres (PostgreSQL) 9.6.24":                         "9.6",
	} {
		if got := majorVersion(line); got != want {
			t.Errorf("majorVersion(%q) = %q, want %q", line, got, want)
		}
	}
}
