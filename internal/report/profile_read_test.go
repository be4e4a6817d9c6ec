package report

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
)

// profiledDir is a results directory (the fixture's journal) with one
// profiling record naming rel as nethttp's Go CPU profile; plant makes
// what rel names, given the directory, and returns rel when it gives none.
func profiledDir(t *testing.T, rel string, plant func(dir string) string) string {
	t.Helper()
	dir := t.TempDir()
	if r := plant(dir); r != "" {
		rel = r
	}
	data, err := os.ReadFile(filepath.Join(fixtureDir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, journal.FileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	jw, _, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	key := journal.ProfilingKey("nethttp", "cpu", 10)
	rec := journal.Profiling{Key: key, Stack: "nethttp", Case: "cpu", Concurrency: 10, Requests: 1000,
		Window:   journal.Window{Key: key, Stack: "nethttp", Case: "cpu", Concurrency: 10, Load: &load.Result{Successes: 1000, ThroughputRPS: 400}, Server: journal.Usage{CPUSeconds: 7.5}},
		Profiles: []journal.ProfileFile{{Kind: journal.ProfileGoCPU, Path: rel, Samples: 600, RateHz: 100}}}
	if err := jw.Append(journal.KindProfiling, rec); err != nil {
		t.Fatal(err)
	}
	jw.Close()
	return dir
}

// gzipped compresses b.
func gzipped(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// report DIR reads a profile only inside the results directory, only a
// regular file, and only so much: a record naming a valid profile outside
// it (by "../", by an absolute path, through a link), a device, a FIFO, a
// file too large or a gzip bomb gets a problem on its cell saying so, and
// no figure.
func TestProfilePathsStayInTheResultsDirectory(t *testing.T) {
	defer func(was int64) { maxProfileDecodedBytes = was }(maxProfileDecodedBytes)
	maxProfileDecodedBytes = 1 << 20 // a small bomb is quick to make
	outside := filepath.Join(t.TempDir(), "theirs.pb.gz")
	writeCPUProfile(t, outside, map[string]int64{"secret.Function": 600})
	nothing := func(string) string { return "" }
	for _, tc := range []struct {
		name, rel, want string
		plant           func(dir string) string
	}{
		{"dot-dot", "", "leaves the results directory", func(dir string) string {
			rel, _ := filepath.Rel(dir, outside)
			return filepath.ToSlash(rel)
		}},
		{"absolute", outside, "leaves the results directory", nothing},
		{"link out", "profiles/link.pb.gz", "escapes", func(dir string) string {
			os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
			os.Symlink(outside, filepath.Join(dir, "profiles/link.pb.gz"))
			return ""
		}},
		{"directory link out", "profiles/x/theirs.pb.gz", "escapes", func(dir string) string {
			os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
			os.Symlink(filepath.Dir(outside), filepath.Join(dir, "profiles/x"))
			return ""
		}},
		{"too large", "profiles/big.pb.gz", "larger than the 32 MiB", func(dir string) string {
			os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
			f, _ := os.Create(filepath.Join(dir, "profiles/big.pb.gz"))
			f.Truncate(maxProfileBytes + 1) // sparse: no disk, no time
			f.Close()
			return ""
		}},
		{"gzip bomb", "profiles/bomb.pb.gz", "larger than the 1 MiB", func(dir string) string {
			os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
			os.WriteFile(filepath.Join(dir, "profiles/bomb.pb.gz"), gzipped(t, make([]byte, maxProfileDecodedBytes+1)), 0o644)
			return ""
		}},
		{"fifo", "profiles/fifo", "not a regular file", func(dir string) string { // opening it must not wait for a writer
			os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
			if err := syscall.Mkfifo(filepath.Join(dir, "profiles/fifo"), 0o600); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{"device", "profiles/zero", "escapes", func(dir string) string {
			os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
			os.Symlink("/dev/zero", filepath.Join(dir, "profiles/zero"))
			return ""
		}},
		{"fifo through a link inside", "profiles/link", "not a regular file", func(dir string) string {
			os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
			syscall.Mkfifo(filepath.Join(dir, "profiles/fifo"), 0o600)
			os.Symlink("fifo", filepath.Join(dir, "profiles/link"))
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Build(profiledDir(t, tc.rel, tc.plant))
			if err != nil {
				t.Fatal(err)
			}
			if m.Profiling == nil || len(m.Profiling.Cells) != 1 {
				t.Fatalf("profiling section %+v, want one cell", m.Profiling)
			}
			c := m.Profiling.Cells[0]
			if len(c.Top) != 0 || !strings.Contains(strings.Join(c.Problems, "; "), tc.want) {
				t.Errorf("top %+v, problems %q; want no figure and a problem naming %q", c.Top, c.Problems, tc.want)
			}
		})
	}
	// A profile inside, through a directory link that stays inside, is read.
	dir := profiledDir(t, "profiles/p.pb.gz", func(dir string) string {
		writeCPUProfile(t, filepath.Join(dir, "real/p.pb.gz"), map[string]int64{"main.handler": 600})
		os.Symlink("real", filepath.Join(dir, "profiles"))
		return ""
	})
	m, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Profiling.Cells[0]; len(c.Top) != 1 || len(c.Problems) != 0 {
		t.Errorf("a profile inside: top %+v, problems %q; want it read", c.Top, c.Problems)
	}
}
