package pgfix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckReachable checks the error a root user gets for a directory the
// server account cannot enter, with an account that owns nothing.
func TestCheckReachable(t *testing.T) {
	acct := account{name: "nobody-test", uid: 54321, gid: 54321, switched: true}
	base := t.TempDir()
	locked := filepath.Join(base, "locked")
	inner := filepath.Join(locked, "db")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o711); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(base), 0o711)
	if err := os.Chmod(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	err := acct.checkReachable(inner)
	if err == nil || !strings.Contains(err.Error(), "cannot enter "+locked) || !strings.Contains(err.Error(), "chmod o+x") {
		t.Fatalf("checkReachable(%s) = %v, want an error naming %s", inner, err, locked)
	}
	if err := os.Chmod(locked, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := acct.checkReachable(inner); err != nil {
		t.Errorf("after chmod: %v", err)
	}
	if err := (account{uid: 54321, gid: 54321}).checkReachable("/nonexistent-unswitched"); err != nil {
		t.Errorf("an account that is not switched needs no check: %v", err)
	}
}

func TestServerAccount(t *testing.T) {
	acct, err := serverAccount()
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if !acct.switched || acct.uid == 0 || acct.name != serverAccountName {
			t.Errorf("as root: account %+v, want the unprivileged %q", acct, serverAccountName)
		}
	} else if acct.switched || acct.uid != os.Geteuid() {
		t.Errorf("as uid %d: account %+v, want the current user", os.Geteuid(), acct)
	}
}
