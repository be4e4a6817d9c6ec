package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
)

// containersLine is the header's sentence about container stacks; "" when
// none ran in a container.
func containersLine(cs []analysis.ContainerStack) string {
	if len(cs) == 0 {
		return ""
	}
	var names []string
	for _, c := range cs {
		names = append(names, fmt.Sprintf("%s (image %s)", c.Stack, c.Image))
	}
	return "Containers: " + strings.Join(names, ", ") + " ran in a container on the host's network; server CPU and memory were read from the container's cgroup (memory: its anonymous memory, without the image's mapped files), and the runtime's command, daemons and shims counted as the harness's overhead, not as foreign CPU."
}
