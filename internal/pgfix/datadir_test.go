package pgfix

import (
	"os"
	"path/filepath"
	"testing"
)

// The data directory is the server account's: a file of it stackbench
// writes, replaced by a link to a file elsewhere (as root, any file of
// the machine), is refused and the file behind the link left as it was:
// stackbench.conf (every start), postgresql.conf (after initdb),
// pg_hba.conf (read, then written, for other hosts) and the server's
// TLS certificate and key.
func TestDataDirectoryWritesFollowNoLink(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(c *Cluster) error
	}{
		{confFile, func(c *Cluster) error { return c.writeConf() }},
		{"postgresql.conf", func(c *Cluster) error { return c.includeConf() }},
		{"pg_hba.conf", func(c *Cluster) error { return c.allowOtherHosts() }},
		{serverCertFile, func(c *Cluster) error { return c.makeTLS("127.0.0.1") }},
		{serverKeyFile, func(c *Cluster) error { return c.makeTLS("127.0.0.1") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := &Cluster{dir: t.TempDir(), state: clusterState{
				Listen: "192.0.2.1", Clients: []string{"192.0.2.2"}, Settings: map[string]string{"port": "5432"}}}
			if err := os.MkdirAll(cl.dataDir(), 0o700); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(cl.dataDir(), c.name)); err != nil {
				t.Fatal(err)
			}
			err := c.write(cl)
			b, _ := os.ReadFile(victim)
			st, _ := os.Stat(victim)
			if string(b) != "precious\n" || st.Mode().Perm() != 0o644 {
				t.Errorf("the victim behind %s was written: %q, mode %v", c.name, b, st.Mode().Perm())
			}
			if err == nil {
				t.Errorf("%s through a link: no error", c.name)
			}
		})
	}
}
