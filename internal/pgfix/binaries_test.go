package pgfix

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindBinariesMissing(t *testing.T) {
	_, err := locateBinaries([]string{t.TempDir()}, noPgConfig, []binarySource{{"x", filepath.Join(t.TempDir(), "*", "bin")}})
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("err = %v, want ErrNoBinaries", err)
	}
	for _, hint := range []string{"apt-get install postgresql", "brew install postgresql@15", "Postgres.app", "--database-url"} {
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
	glob := []binarySource{{"lib", filepath.Join(root, "lib", "*", "bin")}}

	if got, err := locateBinaries(nil, noPgConfig, glob); err != nil || got.Dir != v16 || got.Source != "lib" {
		t.Errorf("newest: got %v, %v; want %q", got, err, v16)
	}
	if got, err := locateBinaries([]string{incomplete, v9}, noPgConfig, glob); err != nil || got.Dir != v9 || got.Source != "PATH" {
		t.Errorf("PATH first: got %v, %v; want %q", got, err, v9)
	}
}

func noPgConfig() string { return "" }

// fakeServer makes dir hold executable initdb, pg_ctl and postgres.
func fakeServer(t *testing.T, dir string) string {
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

// The places of a Mac, rebuilt under a temporary root: Homebrew's two
// prefixes (versioned opt links, the unversioned link, the Cellar) and
// Postgres.app, each found and named, in the documented order.
func TestLocateBinariesOnAMac(t *testing.T) {
	root := t.TempDir()
	rooted := func(srcs []binarySource) []binarySource {
		var out []binarySource
		for _, s := range srcs {
			out = append(out, binarySource{s.Name, filepath.Join(root, s.Glob)})
		}
		return out
	}
	srcs := rooted(binarySources)
	find := func(pgConfig func() string) Binaries {
		t.Helper()
		b, err := locateBinaries([]string{filepath.Join(root, "usr", "bin")}, pgConfig, srcs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	app := fakeServer(t, filepath.Join(root, "Applications/Postgres.app/Contents/Versions/16/bin"))
	fakeServer(t, filepath.Join(root, "Applications/Postgres.app/Contents/Versions/14/bin"))
	if got := find(noPgConfig); got.Dir != app || got.Source != "Postgres.app" {
		t.Errorf("Postgres.app: got %v, want %s", got, app)
	}
	cellar := fakeServer(t, filepath.Join(root, "usr/local/Cellar/postgresql@15/15.8/bin"))
	if got := find(noPgConfig); got.Dir != cellar || got.Source != "Homebrew" {
		t.Errorf("Intel Cellar before Postgres.app: got %v, want %s", got, cellar)
	}
	intel := fakeServer(t, filepath.Join(root, "usr/local/opt/postgresql@15/bin"))
	if got := find(noPgConfig); got.Dir != intel || got.Source != "Homebrew" {
		t.Errorf("Intel opt link: got %v, want %s", got, intel)
	}
	fakeServer(t, filepath.Join(root, "opt/homebrew/opt/postgresql@14/bin"))
	silicon := fakeServer(t, filepath.Join(root, "opt/homebrew/opt/postgresql@17/bin"))
	if got := find(noPgConfig); got.Dir != silicon || got.Source != "Homebrew" {
		t.Errorf("Apple silicon, newest version: got %v, want %s", got, silicon)
	}
	custom := fakeServer(t, filepath.Join(root, "custom", "pg", "bin"))
	if got := find(func() string { return custom }); got.Dir != custom || got.Source != "pg_config --bindir" {
		t.Errorf("pg_config: got %v, want %s", got, custom)
	}
	// A pg_config of a client-only install names a directory without the
	// server: the search goes on.
	if got := find(func() string { return filepath.Join(root, "usr", "bin") }); got.Dir != silicon {
		t.Errorf("client-only pg_config: got %v, want %s", got, silicon)
	}
	if got := (Binaries{Dir: "/x/bin", Source: "Homebrew"}).String(); got != "/x/bin (Homebrew)" {
		t.Errorf("String = %q", got)
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
