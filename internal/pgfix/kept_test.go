package pgfix

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster directory is data: the bin_dir its cluster.json names is not
// run unless it is one of the places LocateBinaries looks. Here it names
// a directory of scripts that would leave a mark if run (as a planted
// stackbench-pg-* on a shared /tmp would run them as root).
func TestChooseBinariesRunsNoRecordedBinDir(t *testing.T) {
	if _, err := LocateBinaries(); err != nil {
		t.Skip(err)
	}
	evil := filepath.Join(t.TempDir(), "bin")
	mark := filepath.Join(t.TempDir(), "ran")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ntouch " + mark + "\necho 'postgres (PostgreSQL) 15.0'\n"
	for _, name := range serverBinaries {
		if err := os.WriteFile(filepath.Join(evil, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := &Cluster{dir: t.TempDir()}
	err := c.chooseBinaries(clusterState{BinDir: evil, Password: "p"}, "", io.Discard)
	if _, serr := os.Stat(mark); serr == nil {
		t.Fatalf("the bin_dir of cluster.json was run: %s exists", mark)
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.state.BinDir == evil {
		t.Errorf("chose the recorded bin_dir %s", evil)
	}
	// With data of the recorded version, still not run.
	c.chooseBinaries(clusterState{BinDir: evil, Password: "p"}, "15", io.Discard)
	if _, serr := os.Stat(mark); serr == nil {
		t.Fatalf("the bin_dir of cluster.json was run for data of its version: %s exists", mark)
	}
}

// The recorded binaries are kept when they are installed where
// LocateBinaries looks (an older version beside the newest, which
// made the data); anywhere else, LocateBinaries decides.
func TestPickInstalledKeepsOnlyLocatedBinaries(t *testing.T) {
	root := t.TempDir()
	v14 := fakeServer(t, filepath.Join(root, "lib", "14", "bin"))
	v16 := fakeServer(t, filepath.Join(root, "lib", "16", "bin"))
	elsewhere := fakeServer(t, filepath.Join(root, "elsewhere", "bin"))
	glob := []binarySource{{"lib", filepath.Join(root, "lib", "*", "bin")}}
	for _, c := range []struct {
		recorded, want string
	}{
		{v14, v14},
		{v14 + "/", v14},
		{elsewhere, v16},
		{"", v16},
	} {
		got, err := pickInstalled(c.recorded, nil, noPgConfig, glob)
		if err != nil || got.Dir != c.want {
			t.Errorf("recorded %q: got %v, %v; want %s", c.recorded, got, err, c.want)
		}
	}
}

// Only this user's own kept cluster, writable by nobody else, is reused.
func TestCheckTempClusterOwnership(t *testing.T) {
	dir, err := os.MkdirTemp("", TempDirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, stateFile)
	if err := os.WriteFile(state, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckTempCluster(dir); err != nil {
		t.Fatalf("this user's own cluster refused: %v", err)
	}
	refused := func(what, want string) {
		t.Helper()
		err := CheckTempCluster(dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", what, err, want)
		}
		if IsTempCluster(dir) {
			t.Errorf("%s: IsTempCluster is true", what)
		}
	}
	os.Chmod(dir, 0o777)
	refused("a directory others may write", "writable by others")
	os.Chmod(dir, 0o711)
	os.Chmod(state, 0o666)
	refused("a cluster.json others may write", "writable by others")
	os.Chmod(state, 0o600)
	if os.Geteuid() != 0 {
		t.Log("not root: the ownership half needs chown to another user")
		return
	}
	const nobody = 65534
	if err := os.Chown(state, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	refused("another user's cluster.json", "not by this user")
	os.Chown(state, 0, 0)
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	refused("another user's directory", "not by this user")
	os.Chown(dir, 0, 0)
	if err := CheckTempCluster(dir); err != nil {
		t.Errorf("given back: %v", err)
	}
}
