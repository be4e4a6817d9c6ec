package report

import (
	"fmt"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
)

// ContainerStack is a stack that ran in a container.
type ContainerStack struct {
	Stack string `json:"stack"`
	Image string `json:"image"`
	// Runtime is the runtime the plan named; "" when stackbench took the
	// one installed.
	Runtime string `json:"runtime,omitempty"`
}

// containers lists the plan's container stacks.
func containers(res *journal.Results) []ContainerStack {
	var out []ContainerStack
	for _, s := range res.Plan.Plan.Stacks {
		if s.Container != nil {
			out = append(out, ContainerStack{Stack: s.Name, Image: s.Container.Image, Runtime: s.Container.Runtime})
		}
	}
	return out
}

// containersLine is the header's sentence about container stacks; "" when
// none ran in a container.
func containersLine(cs []ContainerStack) string {
	if len(cs) == 0 {
		return ""
	}
	var names []string
	for _, c := range cs {
		names = append(names, fmt.Sprintf("%s (image %s)", c.Stack, c.Image))
	}
	return "Containers: " + strings.Join(names, ", ") + " ran in a container on the host's network; server CPU and memory were read from the container's cgroup (memory: its anonymous memory, without the image's mapped files), and the runtime's command, daemons and shims counted as the harness's overhead, not as foreign CPU."
}
