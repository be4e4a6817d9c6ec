package pgfix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster that listens beyond loopback admits the named hosts alone,
// never every address, and refuses to listen for nobody in particular.
func TestHBAAdmitsOnlyTheNamedHosts(t *testing.T) {
	got, err := hbaLines([]string{"10.0.0.7", "fd00::2", "10.0.0.7", "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hostssl all all 10.0.0.7/32 scram-sha-256\n", "hostssl all all fd00::2/128 scram-sha-256\n", "hostssl all all 127.0.0.1/32 scram-sha-256\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("pg_hba lines lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "0.0.0.0/0") || strings.Contains(got, "::/0") || strings.Count(got, "10.0.0.7/32") != 1 {
		t.Errorf("pg_hba lines admit more than the hosts:\n%s", got)
	}
	if _, err := hbaLines(nil); err == nil || !strings.Contains(err.Error(), "no client host named") {
		t.Errorf("no clients: %v", err)
	}
}

// A start beyond loopback writes the clients' lines again, replacing the
// previous start's: a cluster kept for a resume admits the hosts of this
// start alone, and initdb's lines stay.
func TestHBALinesReplacedAtEachStart(t *testing.T) {
	c := &Cluster{dir: t.TempDir(), state: clusterState{Listen: "10.0.0.1", Clients: []string{"10.0.0.7"}}}
	if err := os.MkdirAll(c.dataDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(c.dataDir(), "pg_hba.conf")
	initdb := "host all all 127.0.0.1/32 scram-sha-256\n"
	if err := os.WriteFile(path, []byte(initdb), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, clients := range [][]string{{"10.0.0.7"}, {"10.0.0.8"}, {"10.0.0.8"}} {
		c.state.Clients = clients
		if err := c.allowOtherHosts(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, initdb) || strings.Contains(got, "10.0.0.7") || strings.Count(got, "10.0.0.8/32") != 1 || strings.Count(got, hbaMark) != 1 {
		t.Errorf("pg_hba.conf after starts for 10.0.0.7, then 10.0.0.8 twice:\n%s\nwant initdb's lines and 10.0.0.8's once", got)
	}
}
