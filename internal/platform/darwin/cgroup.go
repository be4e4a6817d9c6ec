//go:build darwin

package darwin

import (
	"fmt"

	"github.com/stackbench/stackbench/internal/platform"
)

// Cgroup: macOS has no cgroups (a container runs inside the runtime's
// Linux VM, out of our sight).
func (OS) Cgroup(pid int) (string, error) {
	return "", fmt.Errorf("macOS has no cgroups: a container runs in the runtime's Linux VM, where stackbench cannot measure it; run container stacks on Linux: %w", platform.ErrUnsupported)
}

// CgroupUsage is not supported.
func (OS) CgroupUsage(string) (platform.CgroupUsage, error) {
	return platform.CgroupUsage{}, platform.ErrUnsupported
}
