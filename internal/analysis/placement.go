package analysis

import (
	"fmt"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
)

// Placement is where the run's processes ran (placement: shared | lanes;
// docs/placement.md): the plan's lanes, the harness's mask, and what the
// windows read back.
type Placement struct {
	plan.Placement
	// AffinityCPUs is the harness's CPU affinity mask at the run's start.
	AffinityCPUs string `json:"affinity_cpus,omitempty"`
	// ReadBack says, per party, on which CPUs the windows' processes were
	// found: "as planned", or the CPU lists seen and in how many windows.
	// Empty with shared.
	ReadBack map[string]string `json:"read_back,omitempty"`
}

// PlacementOf is the header's placement; nil for a journal written before
// placement was recorded.
func PlacementOf(res *journal.Results, finals []journal.Window) *Placement {
	pl := res.RunPlan().Protocol.Placement
	if pl.Mode == "" {
		return nil
	}
	p := &Placement{Placement: pl}
	if len(res.Environments) > 0 {
		p.AffinityCPUs = res.Environments[0].AffinityCPUs
	}
	if !pl.IsLanes() {
		return p
	}
	p.ReadBack = map[string]string{}
	for _, party := range []struct {
		name, lane string
		of         func(*journal.CPUs) string
	}{
		{"server", pl.Server, func(c *journal.CPUs) string { return c.Server }},
		{"database", pl.Database, func(c *journal.CPUs) string { return c.Database }},
		{"generator", pl.Generator, func(c *journal.CPUs) string { return c.Generator }},
	} {
		seen, order := map[string]int{}, []string(nil)
		for _, w := range finals {
			if w.CPUs == nil {
				continue
			}
			got := party.of(w.CPUs)
			if seen[got] == 0 {
				order = append(order, got)
			}
			seen[got]++
		}
		p.ReadBack[party.name] = readBackText(party.lane, seen, order)
	}
	return p
}

func readBackText(lane string, seen map[string]int, order []string) string {
	if len(order) == 0 {
		return "not read"
	}
	if len(order) == 1 && order[0] == lane {
		return "as planned"
	}
	var parts []string
	for _, got := range order {
		switch got {
		case "":
			parts = append(parts, fmt.Sprintf("not placed in %d window(s)", seen[got]))
		default:
			parts = append(parts, fmt.Sprintf("CPUs %s in %d window(s)", got, seen[got]))
		}
	}
	return strings.Join(parts, ", ")
}
