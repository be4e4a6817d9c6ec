package report

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// A results directory is data: the paths its profiling records name are
// read only inside it, only as regular files, and only so much of them.
// (Variables, so that a test may lower them.)
var (
	// maxProfileBytes bounds a profile file as stored (gzip-compressed, as
	// pprof and stackbench's perf conversion write it).
	maxProfileBytes int64 = 32 << 20
	// maxProfileDecodedBytes bounds it decompressed.
	maxProfileDecodedBytes int64 = 128 << 20
)

// readProfile reads the pprof file a profiling record names, rel (slash-
// separated, relative to the results directory dir). It refuses a path
// that leaves the directory (absolute, "..", or through a link that points
// out of it: os.Root), anything but a regular file (a device, a FIFO:
// opened without blocking, and refused), and a file past maxProfileBytes,
// or past maxProfileDecodedBytes decompressed. A link that stays inside
// the directory is followed.
func readProfile(dir, rel string) (*profile.Profile, error) {
	name := filepath.FromSlash(rel)
	if !filepath.IsLocal(name) {
		return nil, fmt.Errorf("read the profile %q: the path leaves the results directory; a profiling record names a file inside it", rel)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("read the profile: %w", err)
	}
	defer root.Close()
	f, err := root.OpenFile(name, local.ReadNoWait, 0)
	if err != nil {
		// os.Root refuses a link that points out of the directory
		// ("path escapes from parent").
		return nil, fmt.Errorf("read the profile %s: %w; a profile is a regular file in the results directory", rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read the profile: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read the profile %s: not a regular file (%v); a profile is a regular file in the results directory", rel, st.Mode().Type())
	}
	if st.Size() > maxProfileBytes {
		return nil, fmt.Errorf("read the profile %s: %d bytes, larger than the %s a profile may be", rel, st.Size(), mibString(maxProfileBytes))
	}
	data, err := readAtMost(f, maxProfileBytes)
	if err != nil {
		return nil, fmt.Errorf("read the profile %s: %w", rel, err)
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s is not a pprof profile: %w", rel, err)
		}
		if data, err = readAtMost(zr, maxProfileDecodedBytes); err != nil {
			return nil, fmt.Errorf("read the profile %s: decompressed, %w", rel, err)
		}
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			// profile.ParseData would decompress it again, unbounded.
			return nil, fmt.Errorf("%s is not a pprof profile: compressed twice", rel)
		}
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("%s is not a pprof profile: %w", rel, err)
	}
	return p, nil
}

// readAtMost reads r to its end, failing past limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than the %s a profile may be", mibString(limit))
	}
	return data, nil
}

// mibString shows a byte count in MiB.
func mibString(n int64) string { return fmt.Sprintf("%g MiB", float64(n)/(1<<20)) }
