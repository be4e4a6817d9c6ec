//go:build linux

package local

import "github.com/stackbench/stackbench/internal/platform/linux"

// OS is the platform of this machine.
var OS = linux.New()

var (
	group       = linux.Group
	cancelGroup = linux.CancelGroup
	startPinned = linux.StartPinned
	started     = linux.Started
	ended       = linux.Ended
)
