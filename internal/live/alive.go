package live

import (
	"errors"
	"os"
	"syscall"
)

// processAlive says whether a process with this pid exists (signal 0:
// nothing is sent; EPERM means it exists under another user).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
