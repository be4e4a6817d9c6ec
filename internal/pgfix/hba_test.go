package pgfix

import (
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
