package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// DefaultExclude are the names a directory sync leaves out unless told
// otherwise: version control, and what a stack's build makes on the host
// itself (node_modules from npm ci, a Python virtualenv, bytecode caches),
// which is tied to the host it was made on. They are neither sent nor
// removed on the host, so a build there can keep its own.
var DefaultExclude = []string{".git", "node_modules", ".venv", "__pycache__"}

// PrivateExclude are the names every directory sync leaves out, whatever
// SyncOptions.Exclude says: what stackbench writes (.stackbench: the
// development cluster, its cluster.json holding the password) and the
// secrets a project keeps beside its code (.env files, direnv's .envrc,
// npm's .npmrc with its registry tokens, SSH keys by their usual names;
// not every id_*, which would take id_generator.go too). A results
// directory at the top (results/, stackbench's output) is left out too,
// and so is any directory that is one (isResultsDir), and what the
// directory's IgnoreFile names.
var PrivateExclude = []string{".stackbench", ".stackbench-ci", ".env", ".env.*", ".envrc", ".npmrc",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*"}

// resultsDirFiles are the files of every results directory: the journal
// and the lock a run takes (journal.FileName and run.LockFile; the test
// checks they agree).
var resultsDirFiles = []string{"journal.jsonl", ".lock"}

// isResultsDir reports whether dir is a stackbench results directory,
// wherever it lies: it holds resultsDirFiles, and with them TLS keys and
// what the run saw.
func isResultsDir(dir string) bool {
	for _, name := range resultsDirFiles {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// IgnoreFile, at the top of a synced directory, names more of it to leave
// out: one pattern a line (filepath.Match), blank lines and lines starting
// with # skipped. A pattern without a slash matches a name at any depth
// (a directory with all below it); one with a slash matches the path from
// the top ("data/raw", "fixtures/*.sql"). A leading or trailing slash is
// ignored. It is not .gitignore, which names what a build makes, and
// the build made here is what the host needs.
const IgnoreFile = ".stackbenchignore"

// Bounds of one sync request: a chunk of file content (base64 in the
// JSON line makes it 4/3 as long) and a manifest batch, both well under
// maxLine.
const (
	syncChunkBytes    = 256 << 10
	syncBatchEntries  = 256
	syncBatchPathSize = 96 << 10
)

// SyncOptions says where and what a directory sync copies.
type SyncOptions struct {
	// Dir is the directory on the agent's host, absolute. Empty: one under
	// the agent's cache ($HOME/.cache/stackbench/dirs/), named after this
	// host and the local directory, so that each local directory has its
	// own and a second sync sends only what changed.
	Dir string
	// Exclude are patterns (filepath.Match) matched against each path's
	// last element: a match is not sent (a directory with all below it),
	// and is not removed on the host. Nil means DefaultExclude; an empty,
	// non-nil slice excludes nothing.
	Exclude []string
}

// SyncResult says what a directory sync did.
type SyncResult struct {
	// Dir is the directory on the agent's host, absolute.
	Dir string
	// Files counts the regular files of the manifest, Sent those whose
	// content was sent (the host lacked it), SentBytes their size.
	Files     int
	Sent      int
	SentBytes int64
	// Removed counts the paths removed on the host because the local
	// directory no longer has them.
	Removed int
}

// SyncKey names a local directory's copy in the agent's cache: its last
// element and a hash of this host's name and its absolute path.
func SyncKey(localDir string) (string, error) {
	abs, err := filepath.Abs(localDir)
	if err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(host + "\x00" + abs))
	base := []rune{}
	for _, r := range filepath.Base(abs) {
		if len(base) == 40 {
			break
		}
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			r = '_'
		}
		base = append(base, r)
	}
	return string(base) + "-" + hex.EncodeToString(sum[:8]), nil
}

// SyncDir makes a directory on the agent's host equal to localDir: same
// paths, file contents, permission bits and links (kept as links, their
// targets as they read), except the names o.Exclude matches. Only the
// files whose content the host lacks (by SHA-256) are sent; what is on the
// host and not in localDir is removed. Memory stays bounded: the tree is
// walked and sent in batches, each file in chunks. Sockets, pipes and
// devices in localDir are skipped.
func (c *Client) SyncDir(ctx context.Context, localDir string, o SyncOptions) (SyncResult, error) {
	var res SyncResult
	fi, err := os.Stat(localDir)
	if err != nil {
		return res, fmt.Errorf("sync %s to %s: %w", localDir, c.host, err)
	}
	if !fi.IsDir() {
		return res, fmt.Errorf("sync %s to %s: not a directory", localDir, c.host)
	}
	exclude := o.Exclude
	if exclude == nil {
		exclude = DefaultExclude
	}
	names, paths, err := readIgnoreFile(filepath.Join(localDir, IgnoreFile))
	if err != nil {
		return res, fmt.Errorf("sync %s to %s: %w", localDir, c.host, err)
	}
	exclude = append(append(append([]string{}, exclude...), PrivateExclude...), names...)
	open := &SyncRequest{Dir: o.Dir, Exclude: exclude}
	if o.Dir == "" {
		if open.Key, err = SyncKey(localDir); err != nil {
			return res, err
		}
	}
	resp, err := c.call(ctx, Request{Op: OpSyncOpen, Sync: open})
	if err != nil {
		return res, err
	}
	if resp.Sync == nil || resp.Sync.Token == "" {
		return res, fmt.Errorf("%s: the agent answered %s without a token", c.host, OpSyncOpen)
	}
	token := resp.Sync.Token
	res.Dir = resp.Sync.Dir
	s := &syncSender{c: c, ctx: ctx, token: token, local: localDir, res: &res, skipPaths: append([]string{"results"}, paths...)}
	if err := s.walk(exclude); err != nil {
		// Leave the host's directory as it is, and the agent free to
		// sync it again.
		c.call(context.WithoutCancel(ctx), Request{Op: OpSyncClose, Sync: &SyncRequest{Token: token, Abort: true}})
		return res, fmt.Errorf("sync %s to %s:%s: %w", localDir, c.host, res.Dir, err)
	}
	resp, err = c.call(ctx, Request{Op: OpSyncClose, Sync: &SyncRequest{Token: token}})
	if err != nil {
		return res, err
	}
	if resp.Sync != nil {
		res.Removed = resp.Sync.Removed
	}
	return res, nil
}

// syncSender walks the local tree and sends it in batches.
type syncSender struct {
	c     *Client
	ctx   context.Context
	token string
	local string
	res   *SyncResult
	batch []SyncEntry
	size  int
	// skipPaths are patterns of paths from the top (slash-separated) to
	// leave out: results/, and IgnoreFile's patterns with a slash.
	skipPaths []string
}

func (s *syncSender) walk(exclude []string) error {
	err := filepath.WalkDir(s.local, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == s.local {
			return nil
		}
		if excluded(d.Name(), exclude) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && isResultsDir(p) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(s.local, p)
		if err != nil {
			return err
		}
		if excluded(filepath.ToSlash(rel), s.skipPaths) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		e, ok, err := entryOf(p, filepath.ToSlash(rel), d)
		if err != nil || !ok {
			return err
		}
		s.batch = append(s.batch, e)
		s.size += len(e.Path) + len(e.Target)
		if len(s.batch) >= syncBatchEntries || s.size >= syncBatchPathSize {
			return s.flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.flush()
}

// entryOf is a local path's manifest entry; ok is false for what a sync
// skips (sockets, pipes, devices).
func entryOf(p, rel string, d fs.DirEntry) (SyncEntry, bool, error) {
	if !utf8.ValidString(rel) {
		return SyncEntry{}, false, fmt.Errorf("%q: a name that is not UTF-8 cannot be synced", rel)
	}
	info, err := d.Info()
	if err != nil {
		return SyncEntry{}, false, err
	}
	e := SyncEntry{Path: rel, Mode: uint32(info.Mode().Perm())}
	switch {
	case info.IsDir():
		e.Kind = SyncDir
	case info.Mode()&fs.ModeSymlink != 0:
		e.Kind, e.Mode = SyncLink, 0
		if e.Target, err = os.Readlink(p); err != nil {
			return e, false, err
		}
		if !utf8.ValidString(e.Target) {
			return e, false, fmt.Errorf("%q: a link target that is not UTF-8 cannot be synced", rel)
		}
	case info.Mode().IsRegular():
		e.Kind, e.Size = SyncFile, info.Size()
		if e.SHA256, err = hashLocal(p); err != nil {
			return e, false, err
		}
	default:
		return e, false, nil
	}
	return e, true, nil
}

func hashLocal(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// flush sends the batch and then the files the agent asks for.
func (s *syncSender) flush() error {
	if len(s.batch) == 0 {
		return nil
	}
	batch := s.batch
	s.batch, s.size = nil, 0
	resp, err := s.c.call(s.ctx, Request{Op: OpSyncManifest, Sync: &SyncRequest{Token: s.token, Entries: batch}})
	if err != nil {
		return err
	}
	byPath := make(map[string]SyncEntry, len(batch))
	for _, e := range batch {
		if e.Kind == SyncFile {
			s.res.Files++
			byPath[e.Path] = e
		}
	}
	if resp.Sync == nil {
		return nil
	}
	for _, p := range resp.Sync.Want {
		e, ok := byPath[p]
		if !ok {
			return fmt.Errorf("the agent asked for %q, not a file of the batch", p)
		}
		if err := s.send(e); err != nil {
			return err
		}
		s.res.Sent++
		s.res.SentBytes += e.Size
	}
	return nil
}

// send sends one file in chunks, the last flagged.
func (s *syncSender) send(e SyncEntry) error {
	f, err := os.Open(filepath.Join(s.local, filepath.FromSlash(e.Path)))
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, syncChunkBytes)
	var off int64
	for {
		n, err := io.ReadFull(f, buf)
		last := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !last {
			return err
		}
		req := &SyncRequest{Token: s.token, Path: e.Path, Offset: off, Data: buf[:n], Last: last}
		if _, err := s.c.call(s.ctx, Request{Op: OpSyncChunk, Sync: req}); err != nil {
			return err
		}
		off += int64(n)
		if last {
			return nil
		}
	}
}

// readIgnoreFile reads IgnoreFile's patterns, split into names (no slash)
// and paths from the top; a missing file names nothing.
func readIgnoreFile(path string) (names, paths []string, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		p := strings.Trim(strings.TrimSpace(line), "/")
		if p == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if _, err := filepath.Match(p, ""); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: pattern %q: %v", path, i+1, p, err)
		}
		if strings.Contains(p, "/") {
			paths = append(paths, p)
		} else {
			names = append(names, p)
		}
	}
	return names, paths, nil
}
