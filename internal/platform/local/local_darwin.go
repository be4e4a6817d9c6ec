//go:build darwin

package local

import (
	"os"

	"github.com/stackbench/stackbench/internal/platform/darwin"
)

// OS is the platform of this machine.
var OS = darwin.New()

var (
	group       = darwin.Group
	cancelGroup = darwin.CancelGroup
	startPinned = darwin.StartPinned
	started     = darwin.Started
	ended       = darwin.Ended
)

// ProcessesWithEnv returns nothing on macOS: another process's
// environment is not readable there (a stack's daemonized processes are
// found through its process group alone).
func ProcessesWithEnv(entry string) []int { return nil }

// BootID is "" on macOS: pids recorded by a killed harness are then
// never signalled (they cannot be told from a later boot's).
func BootID() string { return "" }

// Umask is not read on macOS (it cannot be read without changing it).
func Umask() (mask os.FileMode, ok bool) { return 0, false }

// FlockHeld cannot tell on macOS (no /proc/locks): known is false.
func FlockHeld(path string) (held, known bool) { return false, false }

// ProcessOwner is not read on macOS, where no process is found by its
// environment (ProcessesWithEnv) and no recorded pid is signalled (BootID).
func ProcessOwner(pid int) (uid int, ok bool) { return -1, false }
