package stack

import (
	"os"
	"path/filepath"
	"testing"
)

// The run's throwaway certificate files are private (0600: the stacks
// and the generator run as this user), and the key is removed once the
// run is done; the next TLSFiles makes a new certificate.
func TestTLSFilesPrivateAndKeyRemoved(t *testing.T) {
	logDir := t.TempDir()
	files, err := TLSFiles(logDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{files.CAFile, files.CertFile, files.KeyFile} {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v; want mode 0600", filepath.Base(f), modeOf(st, err))
		}
	}
	if st, err := os.Stat(filepath.Join(logDir, "tls")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("tls folder: %v; want 0700", modeOf(st, err))
	}
	first, _ := os.ReadFile(files.CertFile)
	if err := RemoveTLSKey(logDir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(files.KeyFile); err == nil {
		t.Error("key.pem is still there after RemoveTLSKey")
	}
	again, err := TLSFiles(logDir)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(again.CertFile); string(b) == string(first) {
		t.Error("TLSFiles after RemoveTLSKey gave the old certificate, whose key is gone")
	}
	if _, err := os.Stat(again.KeyFile); err != nil {
		t.Errorf("the new key: %v", err)
	}
	RemoveTLSKey(logDir)
}

// modeOf is a file's permissions, or the error of its stat.
func modeOf(st os.FileInfo, err error) any {
	if err != nil {
		return err
	}
	return st.Mode().Perm()
}
