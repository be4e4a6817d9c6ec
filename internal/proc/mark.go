package proc

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
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
	return fmt.Sprintf("%s.%d.%s", MarkName(name), os.Getpid(), hex.EncodeToString(b))
}

// MarkedPIDs returns the live processes whose environment carries
// MarkEnv=mark (those of this user, whose environment can be read).
func MarkedPIDs(mark string) []int {
	if mark == "" {
		return nil
	}
	return local.ProcessesWithEnv(MarkEnv + "=" + mark)
}

// markRE is the exact form of a mark newMark makes: a name without white
// space or '=', the harness's pid, 16 hex digits.
var markRE = regexp.MustCompile(`^([^\s=]+)\.([1-9][0-9]*)\.([0-9a-f]{16})$`)

// ParseMark returns the stack name in mark (as newMark wrote it, white
// space and '=' made '_'); ok is false unless mark has newMark's exact
// form: a value read from a results directory that does not is never
// acted on.
func ParseMark(mark string) (name string, ok bool) {
	m := markRE.FindStringSubmatch(mark)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// MarkName is the name part newMark writes for a stack named name.
func MarkName(name string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == '=' {
			return '_'
		}
		return r
	}, name)
}

// OwnMarked returns, for each live process of this user (the uid
// stackbench runs as) whose environment carries MarkEnv=mark exactly, its
// process group. A mark not of newMark's form finds nothing.
func OwnMarked(mark string) map[int]int {
	if _, ok := ParseMark(mark); !ok {
		return nil
	}
	out := map[int]int{}
	var r statReader
	for _, pid := range MarkedPIDs(mark) {
		if uid, ok := local.ProcessOwner(pid); !ok || uid != os.Geteuid() {
			continue
		}
		if st, ok := r.read(pid); ok {
			out[pid] = st.PGID
		}
	}
	return out
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
