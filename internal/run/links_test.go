package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/stack"
)

// A results directory is data: a file of it replaced by a link to a file
// elsewhere (here a victim's, 0644) must not carry a write there. One
// planted link per kind of file the run writes.
func TestNoWriteFollowsALinkInTheResultsDirectory(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(dir string) error
	}{
		{LockFile, func(dir string) error {
			release, err := lockResults(dir)
			if err == nil {
				release()
			}
			return err
		}},
		{journal.FileName, func(dir string) error {
			w, _, err := journal.Create(filepath.Join(dir, journal.FileName))
			if err == nil {
				w.Append(journal.KindEvent, journal.Event{Msg: "hello"})
				w.Close()
			}
			return err
		}},
		{serversFile, func(dir string) error {
			leftovers{dir: dir}.note("1 2 boot mark")
			return nil
		}},
		{DBPathFile, func(dir string) error { return writeDBPath(dir, "/tmp/stackbench-pg-x") }},
		{ParityFile, func(dir string) error { return writeParityReport(dir, []byte("all passed\n")) }},
		{"logs/tls", func(dir string) error {
			_, err := stack.TLSFiles(filepath.Join(dir, "logs"))
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, filepath.Dir(c.name)), 0o700)
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := victim
			if c.name == "logs/tls" {
				target = t.TempDir() // a folder elsewhere
			}
			if err := os.Symlink(target, filepath.Join(dir, c.name)); err != nil {
				t.Fatal(err)
			}
			err := c.write(dir)
			b, _ := os.ReadFile(victim)
			st, _ := os.Stat(victim)
			if string(b) != "precious\n" || st.Mode().Perm() != 0o644 {
				t.Errorf("the victim behind %s was written: %q, mode %v (write: %v)", c.name, b, st.Mode().Perm(), err)
			}
			if target != victim {
				if entries, _ := os.ReadDir(target); len(entries) != 0 {
					t.Errorf("%d files written through the folder link %s (write: %v)", len(entries), c.name, err)
				}
			}
			if c.name != serversFile && err == nil {
				t.Errorf("writing %s through a link: no error", c.name)
			}
		})
	}
}
