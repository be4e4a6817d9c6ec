package agent

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// A directory sync makes a directory on the agent's host equal to one on
// the coordinator's, by content, over the session itself (no rsync or
// scp needed on the host):
//
//  1. sync_open names the directory (a key under the agent's cache, or an
//     absolute path) and the exclude patterns; the agent answers a token
//     and the directory's absolute path.
//  2. sync_manifest sends a batch of entries (path, kind, mode, size,
//     SHA-256 or link target). The agent makes directories and links at
//     once, fixes the mode of files it has, and answers the files whose
//     content it lacks.
//  3. sync_chunk sends those files in chunks, in order; the agent writes
//     each to a temporary file beside its place, checks its size and hash,
//     and renames it into place.
//  4. sync_close removes what the manifests did not name, except what the
//     exclude patterns match, and ends the sync.
//
// The agent holds the paths of the manifest (to know what to remove), never
// a file's content beyond one chunk.

// SyncEntry is one path of a directory sync's manifest.
type SyncEntry struct {
	// Path is relative to the directory, with slashes.
	Path string `json:"path"`
	// Kind is "file", "dir" or "link".
	Kind string `json:"kind"`
	// Mode is the permission bits (files and directories).
	Mode uint32 `json:"mode,omitempty"`
	// Size and SHA256 (hex) are a file's.
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// Target is a link's target, as it reads.
	Target string `json:"target,omitempty"`
}

// Kinds of SyncEntry.
const (
	SyncFile = "file"
	SyncDir  = "dir"
	SyncLink = "link"
)

// SyncRequest is one step of a directory sync.
type SyncRequest struct {
	// Token names the sync (every step after sync_open).
	Token string `json:"token,omitempty"`
	// Key names the directory under the agent's cache
	// ($HOME/.cache/stackbench/dirs/KEY); Dir, when set instead, is an
	// absolute path (sync_open).
	Key string `json:"key,omitempty"`
	Dir string `json:"dir,omitempty"`
	// Exclude are the patterns of names neither sent nor removed
	// (sync_open).
	Exclude []string `json:"exclude,omitempty"`
	// Entries is a batch of the manifest (sync_manifest).
	Entries []SyncEntry `json:"entries,omitempty"`
	// Path, Offset, Data and Last are one chunk of a file the agent asked
	// for; Last says it is the file's last (sync_chunk). Data travels as
	// base64.
	Path   string `json:"path,omitempty"`
	Offset int64  `json:"offset,omitempty"`
	Data   []byte `json:"data,omitempty"`
	Last   bool   `json:"last,omitempty"`
	// Abort ends the sync without removing anything (sync_close).
	Abort bool `json:"abort,omitempty"`
}

// SyncReply is the agent's side of a sync step.
type SyncReply struct {
	// Token and Dir (absolute, on the agent's host) answer sync_open.
	Token string `json:"token,omitempty"`
	Dir   string `json:"dir,omitempty"`
	// Want are the manifest's files whose content the agent lacks
	// (sync_manifest).
	Want []string `json:"want,omitempty"`
	// Removed counts the paths removed (sync_close).
	Removed int `json:"removed,omitempty"`
}

// syncMarker is the file a sync leaves at the top of its directory. A
// sync removes what its manifest does not name, so it refuses a directory
// that holds something and not this file: one it did not make.
const syncMarker = ".stackbench-sync"

// syncs are the directory syncs of one agent session.
type syncs struct {
	mu    sync.Mutex
	next  int
	open  map[string]*syncState // by token
	roots map[string]bool       // directories being synced
}

// syncState is one directory sync on the agent's side.
type syncState struct {
	mu      sync.Mutex
	token   string
	root    string
	exclude []string
	seen    map[string]bool      // every path of the manifest
	want    map[string]SyncEntry // files asked for and not yet complete
	// The file being received.
	tmp  *os.File
	path string
	off  int64
	sum  hash.Hash
	n    int // temporary files made, for their names
}

func (s *syncs) handle(op string, req *SyncRequest) (*SyncReply, error) {
	if req == nil {
		return nil, fmt.Errorf("agent: %s without its sync fields", op)
	}
	if op == OpSyncOpen {
		return s.openSync(req)
	}
	s.mu.Lock()
	st := s.open[req.Token]
	s.mu.Unlock()
	if st == nil {
		return nil, fmt.Errorf("agent: no directory sync %q is open", req.Token)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch op {
	case OpSyncManifest:
		want, err := st.manifest(req.Entries)
		return &SyncReply{Want: want}, err
	case OpSyncChunk:
		return &SyncReply{}, st.chunk(req)
	default: // OpSyncClose
		s.forget(st)
		if req.Abort {
			st.discard()
			return &SyncReply{}, nil
		}
		removed, err := st.finish()
		return &SyncReply{Removed: removed}, err
	}
}

// syncRoot is the directory a sync_open names.
func syncRoot(req *SyncRequest) (string, error) {
	if req.Dir != "" {
		if !filepath.IsAbs(req.Dir) {
			return "", fmt.Errorf("agent: a sync's dir must be absolute, not %q", req.Dir)
		}
		return filepath.Clean(req.Dir), nil
	}
	if !validKey(req.Key) {
		return "", fmt.Errorf("agent: a sync's key must be letters, digits, '.', '_' or '-', not %q", req.Key)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("agent: no home directory for the sync's cache: %w", err)
	}
	return filepath.Join(home, ".cache", "stackbench", "dirs", req.Key), nil
}

func validKey(k string) bool {
	if k == "" || k == "." || k == ".." || len(k) > 200 {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func (s *syncs) openSync(req *SyncRequest) (*SyncReply, error) {
	root, err := syncRoot(req)
	if err != nil {
		return nil, err
	}
	for _, p := range req.Exclude {
		if _, err := filepath.Match(p, ""); err != nil {
			return nil, fmt.Errorf("agent: exclude pattern %q: %w", p, err)
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("agent: make the sync's directory: %w", err)
	}
	if fi, err := os.Lstat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("agent: the sync's directory %s is not a directory", root)
	}
	if err := claimDir(root); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.roots[root] {
		return nil, fmt.Errorf("agent: %s is already being synced", root)
	}
	if s.open == nil {
		s.open, s.roots = map[string]*syncState{}, map[string]bool{}
	}
	s.next++
	st := &syncState{token: fmt.Sprintf("s%d-%s", s.next, randomHex(4)), root: root, exclude: req.Exclude,
		seen: map[string]bool{}, want: map[string]SyncEntry{}}
	s.open[st.token] = st
	s.roots[root] = true
	return &SyncReply{Token: st.token, Dir: root}, nil
}

// claimDir marks root as a sync's directory, refusing one that holds
// files but no mark.
func claimDir(root string) error {
	marker := filepath.Join(root, syncMarker)
	if _, err := os.Lstat(marker); err == nil {
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("agent: sync: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("agent: %s holds files and was not made by a sync, which would remove them; sync into a new or empty directory", root)
	}
	if err := os.WriteFile(marker, []byte("A directory kept equal to one of the coordinator's by stackbench's sync: what it holds may be removed.\n"), 0o644); err != nil {
		return fmt.Errorf("agent: sync: %w", err)
	}
	return nil
}

func (s *syncs) forget(st *syncState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, st.token)
	delete(s.roots, st.root)
}

// closeAll abandons every open sync (the session ended): their temporary
// files are removed, nothing else.
func (s *syncs) closeAll() {
	s.mu.Lock()
	open := s.open
	s.open, s.roots = nil, nil
	s.mu.Unlock()
	for _, st := range open {
		st.mu.Lock()
		st.discard()
		st.mu.Unlock()
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// localPath checks a manifest path and returns it on this host.
func localPath(p string) (string, error) {
	fp := filepath.FromSlash(p)
	if p == "" || !filepath.IsLocal(fp) || filepath.Clean(fp) != fp || fp == "." {
		return "", fmt.Errorf("agent: sync path %q is not a clean path inside the directory", p)
	}
	return fp, nil
}

// manifest applies a batch: directories and links are made at once,
// files with the right content get their mode, and the others are asked
// for.
func (st *syncState) manifest(entries []SyncEntry) ([]string, error) {
	var want []string
	for _, e := range entries {
		rel, err := localPath(e.Path)
		if err != nil {
			return want, err
		}
		if st.seen[rel] {
			return want, fmt.Errorf("agent: sync path %q is twice in the manifest", e.Path)
		}
		st.seen[rel] = true
		if err := st.ensureParent(rel); err != nil {
			return want, err
		}
		full := filepath.Join(st.root, rel)
		fi, statErr := os.Lstat(full)
		perm := syncedPerm(e.Mode)
		switch e.Kind {
		case SyncDir:
			if statErr == nil && !fi.IsDir() {
				if err := os.RemoveAll(full); err != nil {
					return want, err
				}
				statErr = fs.ErrNotExist
			}
			if statErr != nil {
				if err := os.Mkdir(full, perm); err != nil {
					return want, fmt.Errorf("agent: sync: %w", err)
				}
			}
			if err := os.Chmod(full, perm); err != nil {
				return want, fmt.Errorf("agent: sync: %w", err)
			}
		case SyncLink:
			if statErr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				if t, err := os.Readlink(full); err == nil && t == e.Target {
					continue
				}
			}
			if statErr == nil {
				if err := os.RemoveAll(full); err != nil {
					return want, err
				}
			}
			if err := os.Symlink(e.Target, full); err != nil {
				return want, fmt.Errorf("agent: sync: %w", err)
			}
		case SyncFile:
			if statErr == nil && fi.Mode().IsRegular() && fi.Size() == e.Size && fileSum(full) == e.SHA256 {
				if fi.Mode().Perm() != perm {
					if err := os.Chmod(full, perm); err != nil {
						return want, fmt.Errorf("agent: sync: %w", err)
					}
				}
				continue
			}
			st.want[rel] = e
			want = append(want, e.Path)
		default:
			return want, fmt.Errorf("agent: sync path %q has kind %q; want file, dir or link", e.Path, e.Kind)
		}
	}
	return want, nil
}

// ensureParent makes rel's parent directories real directories (a link or
// a file in their place is removed), so that nothing written goes through
// a link out of the directory.
func (st *syncState) ensureParent(rel string) error {
	dir := filepath.Dir(rel)
	if dir == "." {
		return nil
	}
	p := st.root
	for _, name := range strings.Split(dir, string(filepath.Separator)) {
		p = filepath.Join(p, name)
		fi, err := os.Lstat(p)
		if err == nil && fi.IsDir() {
			continue
		}
		if err == nil {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("agent: sync: %w", err)
			}
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return fmt.Errorf("agent: sync: %w", err)
		}
	}
	return nil
}

func fileSum(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// chunk writes one chunk of a file asked for; the last one checks the
// file and puts it in place.
func (st *syncState) chunk(req *SyncRequest) error {
	rel, err := localPath(req.Path)
	if err != nil {
		return err
	}
	e, ok := st.want[rel]
	if !ok {
		return fmt.Errorf("agent: sync: %q was not asked for", req.Path)
	}
	if req.Offset == 0 {
		st.discard()
		if err := st.ensureParent(rel); err != nil {
			return err
		}
		st.n++
		tmp := filepath.Join(st.root, filepath.Dir(rel), fmt.Sprintf(".sbsync-%s-%d", st.token, st.n))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("agent: sync: %w", err)
		}
		st.tmp, st.path, st.off, st.sum = f, rel, 0, sha256.New()
	}
	if st.tmp == nil || st.path != rel || st.off != req.Offset {
		return fmt.Errorf("agent: sync: a chunk of %q at offset %d does not follow what was received", req.Path, req.Offset)
	}
	if _, err := st.tmp.Write(req.Data); err != nil {
		st.discard()
		return fmt.Errorf("agent: sync: write %s: %w", req.Path, err)
	}
	st.sum.Write(req.Data)
	st.off += int64(len(req.Data))
	if !req.Last {
		return nil
	}
	defer st.discard()
	if got := hex.EncodeToString(st.sum.Sum(nil)); st.off != e.Size || got != e.SHA256 {
		return fmt.Errorf("agent: sync: %s arrived with %d bytes and SHA-256 %.16s, not the manifest's %d and %.16s; it changed while it was sent: sync again",
			req.Path, st.off, got, e.Size, e.SHA256)
	}
	if err := st.tmp.Chmod(syncedPerm(e.Mode)); err != nil {
		return fmt.Errorf("agent: sync: %w", err)
	}
	if err := st.tmp.Close(); err != nil {
		return fmt.Errorf("agent: sync: %w", err)
	}
	full := filepath.Join(st.root, rel)
	if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
		if err := os.RemoveAll(full); err != nil {
			return fmt.Errorf("agent: sync: %w", err)
		}
	}
	if err := os.Rename(st.tmp.Name(), full); err != nil {
		return fmt.Errorf("agent: sync: %w", err)
	}
	st.tmp = nil
	delete(st.want, rel)
	return nil
}

// discard removes the temporary file being written, if any.
func (st *syncState) discard() {
	if st.tmp == nil {
		return
	}
	st.tmp.Close()
	os.Remove(st.tmp.Name())
	st.tmp = nil
}

// finish removes every path the manifest did not name, leaving what the
// exclude patterns match, and returns how many it removed.
func (st *syncState) finish() (int, error) {
	st.discard()
	if len(st.want) > 0 {
		return 0, fmt.Errorf("agent: sync closed with %d files asked for and not sent", len(st.want))
	}
	removed := 0
	err := filepath.WalkDir(st.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(st.root, p)
		if rel == "." || rel == syncMarker {
			return nil
		}
		if st.seen[rel] {
			return nil
		}
		if excluded(d.Name(), st.exclude) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		removed++
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("agent: sync: remove what the manifest did not name: %w", err)
	}
	return removed, nil
}

// excluded says whether a name matches one of the patterns.
func excluded(name string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// syncedPerm is a synced path's permission bits on this host: the
// coordinator's, less what this host's umask takes away (a file readable
// by everyone there stays private here when the agent's user wants so).
func syncedPerm(mode uint32) fs.FileMode {
	return fs.FileMode(mode).Perm() &^ hostUmask()
}

// hostUmask is the agent process's umask; 022 where the system does not
// say.
var hostUmask = sync.OnceValue(func() fs.FileMode {
	if m, ok := local.Umask(); ok {
		return m
	}
	return 0o022
})
