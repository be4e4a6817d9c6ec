package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// modulePath is stackbench's module, whose source a cross-build needs.
const modulePath = "github.com/stackbench/stackbench"

// Platform is a host's operating system and architecture as Go spells them.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Local is the platform this stackbench was built for.
func Local() Platform { return Platform{runtime.GOOS, runtime.GOARCH} }

// unameArch maps `uname -m` to GOARCH.
var unameArch = map[string]string{
	"x86_64": "amd64", "amd64": "amd64",
	"aarch64": "arm64", "arm64": "arm64",
	"i386": "386", "i686": "386",
	"armv7l": "arm", "armv6l": "arm",
	"ppc64le": "ppc64le", "s390x": "s390x", "riscv64": "riscv64",
}

// Platform asks the host for its OS and architecture (uname -s -m).
func (c *Conn) Platform(ctx context.Context) (Platform, error) {
	p, _, err := c.survey(ctx, "")
	return p, err
}

// survey asks, in one command (each costs a login shell on the host), for
// the host's platform and whether the agent of the given hash is in its
// cache (no hash: not asked).
func (c *Conn) survey(ctx context.Context, hash string) (Platform, bool, error) {
	cmd := "uname -s -m"
	if hash != "" {
		cmd += "; if [ -x " + agentPath(hash) + " ]; then echo cached; fi"
	}
	out, err := c.Output(ctx, cmd, nil)
	if err != nil {
		return Platform{}, false, err
	}
	uname, rest, _ := strings.Cut(string(out), "\n")
	p, err := parseUname(c.Host.Name, uname)
	return p, strings.TrimSpace(rest) == "cached", err
}

func parseUname(host, out string) (Platform, error) {
	f := strings.Fields(out)
	if len(f) != 2 {
		return Platform{}, fmt.Errorf("host %s: uname -s -m said %q, not an OS and an architecture", host, strings.TrimSpace(out))
	}
	goos := strings.ToLower(f[0])
	if goos != "linux" && goos != "darwin" {
		return Platform{}, fmt.Errorf("host %s runs %s; stackbench's agent runs on Linux and macOS", host, f[0])
	}
	arch, ok := unameArch[f[1]]
	if !ok {
		return Platform{}, fmt.Errorf("host %s has architecture %s, which stackbench does not know how to build for", host, f[1])
	}
	return Platform{goos, arch}, nil
}

// BinaryFor returns a stackbench binary for p: ours when p is our
// platform, else a file named stackbench-OS-ARCH beside ours, else one
// cross-built from o.Source (kept in the user's cache directory, rebuilt
// when the source changed). Without
// either the error says how to provide one.
func BinaryFor(ctx context.Context, p Platform, o Options) (string, error) {
	own := o.Binary
	if own == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("find the stackbench binary to copy: %w", err)
		}
		own = exe
	}
	if p == Local() {
		return own, nil
	}
	sibling := filepath.Join(filepath.Dir(own), "stackbench-"+p.OS+"-"+p.Arch)
	if st, err := os.Stat(sibling); err == nil && st.Mode().IsRegular() {
		return sibling, nil
	}
	if o.Source == "" {
		return "", fmt.Errorf("the host is %s and this stackbench is built for %s, and there is no source tree to cross-build from: build one with CGO_ENABLED=0 GOOS=%s GOARCH=%s go build -o %s ./cmd/stackbench in stackbench's source, or run stackbench from inside its source tree",
			p, Local(), p.OS, p.Arch, sibling)
	}
	return crossBuild(ctx, p, o.Source)
}

// crossBuild builds cmd/stackbench from source for p, cached in the
// user's cache directory by sourceKey: the source and the toolchain that
// build it, not our own binary (so cached, a source edited since its first
// cross-build got the old agent). A build removes the platform's older ones.
func crossBuild(ctx context.Context, p Platform, source string) (string, error) {
	key, err := sourceKey(ctx, source)
	if err != nil {
		return "", fmt.Errorf("cross-build for %s: %w", p, err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cross-build for %s: %w", p, err)
	}
	prefix := filepath.Join(cache, "stackbench", "cross", fmt.Sprintf("stackbench-%s-%s-", p.OS, p.Arch))
	out := prefix + key[:16]
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", fmt.Errorf("cross-build for %s: %w", p, err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, "./cmd/stackbench")
	cmd.Dir = source
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cross-build stackbench for %s in %s: %w\n%s", p, source, err, msg)
	}
	old, _ := filepath.Glob(prefix + "*")
	for _, f := range old {
		if f != out {
			os.Remove(f)
		}
	}
	return out, nil
}

// sourceKey is a SHA-256, hex, of what a build of cmd/stackbench reads
// from source: go.mod, go.sum and every file under cmd/ and internal/
// (embedded files included) but tests and testdata, with `go version`.
// Dependencies are fixed by go.sum.
func sourceKey(ctx context.Context, source string) (string, error) {
	h := sha256.New()
	version, err := exec.CommandContext(ctx, "go", "version").Output()
	if err != nil {
		return "", fmt.Errorf("go version: %w", err)
	}
	h.Write(version)
	add := func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(source, path)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := add(filepath.Join(source, f)); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(source, dir), func(path string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")):
				return filepath.SkipDir
			case !d.Type().IsRegular() || strings.HasSuffix(d.Name(), "_test.go"):
				return nil
			}
			return add(path)
		})
		if err != nil && !os.IsNotExist(err) {
			return "", fmt.Errorf("read the source in %s: %w", source, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FindSource returns the root of stackbench's source tree at or above dir,
// or "" when dir is not inside one (or Go is not installed to build it).
// A module nested in the tree (apps/, the reference servers') is passed
// through on the way up.
func FindSource(dir string) string {
	if _, err := exec.LookPath("go"); err != nil {
		return ""
	}
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			first, _, _ := strings.Cut(string(data), "\n")
			switch module := strings.TrimPrefix(strings.TrimSpace(first), "module "); {
			case module == modulePath:
				return d
			case !strings.HasPrefix(module, modulePath+"/"):
				return ""
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// hashes memoises fileHash by path, size and modification time: a run
// connects to several hosts with the same binary.
var hashes sync.Map // hashKey → string

type hashKey struct {
	path  string
	size  int64
	mtime int64
}

// fileHash is the SHA-256 of a file, hex.
func fileHash(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	key := hashKey{path, st.Size(), st.ModTime().UnixNano()}
	if h, ok := hashes.Load(key); ok {
		return h.(string), nil
	}
	h, err := hashFile(path)
	if err == nil {
		hashes.Store(key, h)
	}
	return h, err
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// agentPath is where a binary of the given hash lives on a host: a shell
// word that the login shell expands ($HOME).
func agentPath(hash string) string {
	return `"$HOME/.cache/stackbench/agent-` + hash[:16] + `"`
}

// Install copies the binary to the host unless a copy of the same hash is
// there already, and returns the remote path (a shell word) and whether it
// was copied.
func (c *Conn) Install(ctx context.Context, binary string) (path string, copied bool, err error) {
	hash, err := fileHash(binary)
	if err != nil {
		return "", false, err
	}
	path = agentPath(hash)
	out, err := c.Output(ctx, "if [ -x "+path+" ]; then echo cached; fi", nil)
	if err != nil {
		return "", false, err
	}
	if bytes.Equal(bytes.TrimSpace(out), []byte("cached")) {
		return path, false, nil
	}
	return path, true, c.copyBinary(ctx, binary, hash)
}

// copyBinary writes binary into the host's cache under its hash.
func (c *Conn) copyBinary(ctx context.Context, binary, hash string) error {
	path := agentPath(hash)
	data, err := os.ReadFile(binary)
	if err != nil {
		return fmt.Errorf("read %s: %w", binary, err)
	}
	// Written to a temporary name and renamed, so an interrupted copy
	// never leaves a truncated agent under the cached name.
	script := `set -e; d="$HOME/.cache/stackbench"; mkdir -p "$d"; t="$d/.agent-` + hash[:16] + `.$$"; cat > "$t"; chmod 755 "$t"; mv -f "$t" ` + path
	if _, err := c.Output(ctx, script, data); err != nil {
		return fmt.Errorf("copy stackbench to host %s: %w", c.Host.Name, err)
	}
	return nil
}
