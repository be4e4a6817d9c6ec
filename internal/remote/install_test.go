package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseUname(t *testing.T) {
	for _, c := range []struct {
		out, want, err string
	}{
		{"Linux x86_64\n", "linux/amd64", ""},
		{"Linux aarch64", "linux/arm64", ""},
		{"Darwin arm64\n", "darwin/arm64", ""},
		{"FreeBSD amd64", "", "runs FreeBSD"},
		{"Linux mips", "", "architecture mips"},
		{"", "", "not an OS and an architecture"},
	} {
		p, err := parseUname("h", c.out)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v; want %q", c.out, err, c.err)
			}
			continue
		}
		if err != nil || p.String() != c.want {
			t.Errorf("%q = %s, %v; want %s", c.out, p, err, c.want)
		}
	}
}

// Our platform gets our binary; another gets a stackbench-OS-ARCH beside
// it, else a cross-build from the source, else an error that says how.
func TestBinaryFor(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	own := filepath.Join(dir, "stackbench")
	os.WriteFile(own, []byte("own"), 0o755)
	o := Options{Binary: own}
	if got, err := BinaryFor(ctx, Local(), o); err != nil || got != own {
		t.Fatalf("own platform: %s, %v", got, err)
	}
	other := Platform{"linux", "riscv64"}
	if Local() == other {
		other = Platform{"linux", "arm64"}
	}
	_, err := BinaryFor(ctx, other, o)
	if err == nil || !strings.Contains(err.Error(), "GOOS="+other.OS+" GOARCH="+other.Arch) || !strings.Contains(err.Error(), "no source tree") {
		t.Fatalf("no sibling, no source: %v", err)
	}
	sibling := filepath.Join(dir, "stackbench-"+other.OS+"-"+other.Arch)
	os.WriteFile(sibling, []byte("other"), 0o755)
	if got, err := BinaryFor(ctx, other, o); err != nil || got != sibling {
		t.Fatalf("sibling: %s, %v", got, err)
	}
}

func TestFindSource(t *testing.T) {
	root, _ := filepath.Abs("../..")
	if got := FindSource(filepath.Join(root, "internal", "remote")); got != root {
		t.Fatalf("FindSource in the tree = %q; want %q", got, root)
	}
	if got := FindSource(filepath.Join(root, "apps", "nethttp-pgx")); got != root {
		t.Fatalf("FindSource in apps/, a module of its own in the tree, = %q; want %q", got, root)
	}
	if got := FindSource(t.TempDir()); got != "" {
		t.Fatalf("FindSource outside = %q", got)
	}
}
