package local

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"github.com/stackbench/stackbench/internal/platform"
)

// Terminate is SIGTERM, kill's default signal.
var Terminate os.Signal = syscall.SIGTERM

// Hangup is SIGHUP, sent when the terminal closes.
var Hangup os.Signal = syscall.SIGHUP

// Alive reports whether pid is a process that has not exited: it exists
// (even if it belongs to another user) and, when we can read it, is not a
// zombie waiting for its parent.
func Alive(pid int) bool {
	if err := OS.Signal(pid, platform.Probe); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if p, ok := OS.NewProcReader().Read(pid); ok {
		return p.Alive
	}
	return true
}

// RunAs makes cmd run as the user and group uid and gid.
func RunAs(cmd *exec.Cmd, uid, gid int) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// FileOwner returns the owning user and group of a file; ok is false when
// the file system does not say.
func FileOwner(fi os.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, -1, false
	}
	return int(st.Uid), int(st.Gid), true
}

// FileID returns the device and inode of a file and its number of hard
// links; ok is false when the file system does not say.
func FileID(fi os.FileInfo) (dev, ino, nlink uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink), true
}

// NoFollow is the open flag that refuses a symbolic link as the last
// element of a path (O_NOFOLLOW): a log or lock file is never written
// through a link someone left in its place.
const NoFollow = syscall.O_NOFOLLOW

// ErrLocked is what TryLock returns when another process holds the lock.
var ErrLocked = errors.New("held by another process")

// TryLock takes an exclusive advisory lock on f without waiting (flock):
// ErrLocked when another process holds it. The kernel drops the lock when
// the holder's file is closed or the holder dies.
func TryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// FreeBytes is the space an unprivileged user may still write in the file
// system that holds dir.
func FreeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
