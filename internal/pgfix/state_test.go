package pgfix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster.json written before the keys were snake_case still names its
// binaries.
func TestReadStateOldKeys(t *testing.T) {
	dir := t.TempDir()
	old := `{"port":5433,"password":"p","binDir":"/usr/lib/postgresql/15/bin","version":"15.18","settings":{}}`
	if err := os.WriteFile(filepath.Join(dir, stateFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.BinDir != "/usr/lib/postgresql/15/bin" || st.Port != 5433 {
		t.Errorf("read %+v from an old cluster.json", st)
	}
	if err := writeState(dir, st); err != nil {
		t.Fatal(err)
	}
	again, err := readState(dir)
	if err != nil || again.BinDir != st.BinDir {
		t.Errorf("written and read again: %+v, %v", again, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, stateFile))
	if want := `"bin_dir": "/usr/lib/postgresql/15/bin"`; !strings.Contains(string(b), want) || strings.Contains(string(b), "binDir") {
		t.Errorf("cluster.json now reads\n%s\nwant %s and no binDir", b, want)
	}
}
