package run

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/platform/local"
)

// LockFile names, in a results directory, the file a run holds locked
// while it writes there; it says who holds it.
const LockFile = ".lock"

// lockResults takes the results directory dir for this process: a second
// run or resume of it is refused, naming the holder, until release (or
// the holder's death: the kernel drops the lock with the process).
func lockResults(dir string) (release func(), err error) {
	// No link followed: a .lock replaced by a link to a file elsewhere
	// would have that file truncated and written.
	f, err := fileutil.OpenIn(dir, LockFile, os.O_RDWR|os.O_CREATE, privateFileMode)
	if err != nil {
		return nil, fmt.Errorf("lock the results directory: %w", err)
	}
	if err := local.TryLock(f); err != nil {
		holder := make([]byte, 512)
		n, _ := f.ReadAt(holder, 0)
		holder = holder[:n]
		f.Close()
		if errors.Is(err, local.ErrLocked) {
			return nil, fmt.Errorf("%s is in use by another stackbench (%s); wait for it to end, or stop it, before running or resuming this directory",
				dir, describeHolder(string(holder)))
		}
		return nil, fmt.Errorf("lock the results directory: %w", err)
	}
	host, _ := os.Hostname()
	args := strings.Join(os.Args, " ")
	if len(args) > 200 {
		args = args[:200] + "…"
	}
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d on %s since %s: %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), args)
	f.Sync()
	return func() { f.Close() }, nil
}

func describeHolder(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "it has not said who it is yet"
	}
	return s
}
