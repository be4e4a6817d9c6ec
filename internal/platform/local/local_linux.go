//go:build linux

package local

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/platform/linux"
)

// OS is the platform of this machine.
var OS = linux.New()

var (
	group       = linux.Group
	cancelGroup = linux.CancelGroup
	startPinned = linux.StartPinned
	started     = linux.Started
	ended       = linux.Ended
)

// ProcessesWithEnv returns the live processes other than this one whose
// environment holds the entry "NAME=value", whole (not the end of a longer
// name, nor the start of a longer value): those of this user, or all
// when run as root (the environment of others cannot be read).
func ProcessesWithEnv(entry string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte("\x00" + entry + "\x00")
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		// A leading NUL lets the first entry match as the others do.
		if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
			continue
		}
		// The environ of a zombie reads empty; a match is a live process.
		out = append(out, pid)
	}
	return out
}

// BootID identifies the running boot of the machine: a pid recorded
// under another boot names another process.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Umask is this process's file mode creation mask, read from
// /proc/self/status (umask(2) would change it for a moment); ok is false
// when the kernel does not say.
func Umask() (mask os.FileMode, ok bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(l, "Umask:"); found {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return os.FileMode(n).Perm(), true
			}
		}
	}
	return 0, false
}

// FlockHeld says whether some process holds a flock on the file at path,
// read from /proc/locks (the file is neither opened nor locked, so a run
// about to take it is never refused); known is false when that cannot be
// read.
func FlockHeld(path string) (held, known bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, false
	}
	dev, ino, _, ok := FileID(fi)
	if !ok {
		return false, false
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return false, false
	}
	// "1: FLOCK  ADVISORY  WRITE 4123 fd:01:1234567 0 EOF": the device
	// as major:minor in hex, then the inode. Blocked waiters ("->") are
	// not holders.
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	want := strconv.FormatUint(major, 16) + ":" + strconv.FormatUint(minor, 16) + ":" + strconv.FormatUint(ino, 10)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" {
			continue
		}
		if parts := strings.Split(f[5], ":"); len(parts) == 3 {
			maj, _ := strconv.ParseUint(parts[0], 16, 64)
			mnr, _ := strconv.ParseUint(parts[1], 16, 64)
			if strconv.FormatUint(maj, 16)+":"+strconv.FormatUint(mnr, 16)+":"+parts[2] == want {
				return true, true
			}
		}
	}
	return false, true
}

// ProcessOwner returns the user a process runs as (its real uid, the
// owner of /proc/PID); ok is false when it is gone.
func ProcessOwner(pid int) (uid int, ok bool) {
	fi, err := os.Stat("/proc/" + strconv.Itoa(pid))
	if err != nil {
		return -1, false
	}
	uid, _, ok = FileOwner(fi)
	return uid, ok
}
