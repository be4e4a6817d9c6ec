package proc

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/stackbench/stackbench/internal/platform"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// MarkEnv is the environment variable every process a stack starts
// inherits: a value of its own per started process, by which Stop finds
// what the stack daemonized (a `setsid cmd &` leaves the process group
// and, once its parent exits, the tree), and a resume what a killed
// harness left running.
const MarkEnv = "STACKBENCH_STACK_MARK"

// newMark returns a mark for a stack's process: its name, the harness's
// pid and random bytes, so that no other process carries it by chance.
func newMark(name string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return fmt.Sprintf("%s.%d.%s", strings.Map(func(r rune) rune {
		if r <= ' ' || r == '=' {
			return '_'
		}
		return r
	}, name), os.Getpid(), hex.EncodeToString(b))
}

// MarkedPIDs returns the live processes whose environment carries
// MarkEnv=mark (those of this user, whose environment can be read).
func MarkedPIDs(mark string) []int {
	if mark == "" {
		return nil
	}
	return local.ProcessesWithEnv(MarkEnv + "=" + mark)
}

// KillMarked sends SIGKILL to every process carrying mark and returns
// how many it found.
func KillMarked(mark string) int {
	pids := MarkedPIDs(mark)
	for _, pid := range pids {
		local.OS.Signal(pid, platform.Kill)
	}
	return len(pids)
}

// BootID identifies the running boot of the machine ("" where the
// system does not say): a pid recorded under another boot names another
// process, and is never signalled.
func BootID() string { return local.BootID() }
