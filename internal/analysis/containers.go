package analysis

import "github.com/stackbench/stackbench/internal/journal"

// ContainerStack is a stack that ran in a container.
type ContainerStack struct {
	Stack string `json:"stack"`
	Image string `json:"image"`
	// Runtime is the runtime the plan named; "" when stackbench took the
	// one installed.
	Runtime string `json:"runtime,omitempty"`
}

// ContainersOf lists the plan's container stacks.
func ContainersOf(res *journal.Results) []ContainerStack {
	var out []ContainerStack
	for _, s := range res.RunPlan().Stacks {
		if s.Container != nil {
			out = append(out, ContainerStack{Stack: s.Name, Image: s.Container.Image, Runtime: s.Container.Runtime})
		}
	}
	return out
}
