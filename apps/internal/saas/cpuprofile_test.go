package saas

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWithCPUProfileWritesAProfileAndPassesServeThrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	errServe := errors.New("serve failed")
	err := WithCPUProfile(path, func() error {
		CPUChain(20000) // some samples; the profile is valid without them too
		return errServe
	})
	if !errors.Is(err, errServe) {
		t.Fatalf("WithCPUProfile returned %v, want serve's error", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// runtime/pprof writes a gzipped protocol buffer.
	if len(data) < 20 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("profile is %d bytes starting %x, want a gzip stream", len(data), data[:min(len(data), 4)])
	}
}

func TestWithCPUProfileWithoutAPathOnlyServes(t *testing.T) {
	ran := false
	if err := WithCPUProfile("", func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("WithCPUProfile(\"\") = %v, ran %v; want nil and the serve function run", err, ran)
	}
}

func TestWithCPUProfileReportsAnUncreatableFile(t *testing.T) {
	err := WithCPUProfile(filepath.Join(t.TempDir(), "missing", "cpu.pprof"), func() error {
		t.Fatal("serve ran although the profile could not be created")
		return nil
	})
	if err == nil {
		t.Fatal("no error for a profile path in a missing directory")
	}
}
