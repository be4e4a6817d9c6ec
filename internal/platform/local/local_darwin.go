//go:build darwin

package local

import "github.com/stackbench/stackbench/internal/platform/darwin"

// OS is the platform of this machine.
var OS = darwin.New()

var (
	group       = darwin.Group
	cancelGroup = darwin.CancelGroup
	startPinned = darwin.StartPinned
	started     = darwin.Started
	ended       = darwin.Ended
)
