package load

import (
	"os"
	"path/filepath"
	"testing"
)

// The throwaway certificate's files are written through no link: a
// ca.pem, cert.pem or key.pem replaced by a link to a file elsewhere is
// refused, and that file neither written nor given another mode.
func TestWriteThrowawayCAFollowsNoLink(t *testing.T) {
	for _, name := range []string{"ca.pem", "cert.pem", "key.pem"} {
		dir := t.TempDir()
		victim := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(victim, []byte("precious\n"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		_, err := WriteThrowawayCA(dir)
		b, _ := os.ReadFile(victim)
		st, _ := os.Stat(victim)
		if string(b) != "precious\n" || st.Mode().Perm() != 0o640 {
			t.Errorf("%s: the victim was written: %q, mode %v", name, b, st.Mode().Perm())
		}
		if err == nil {
			t.Errorf("%s through a link: no error", name)
		}
	}
}
