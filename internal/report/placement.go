package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"

	"github.com/stackbench/stackbench/internal/plan"
)

// placementLine is the header's sentence about placement; "" for a journal
// written before placement was recorded.
func placementLine(p *analysis.Placement) string {
	if p == nil {
		return ""
	}
	mask := ""
	if p.AffinityCPUs != "" {
		mask = " (the harness's mask: CPUs " + p.AffinityCPUs + ")"
	}
	if !p.IsLanes() {
		if p.NoAffinity {
			return fmt.Sprintf("Placement: %s: the generator, the server and the database on every CPU; this OS has no CPU affinity, so no lanes.", p.Placement.Mode)
		}
		return fmt.Sprintf("Placement: %s: the generator, the server and the database on every CPU%s.", p.Placement, mask)
	}
	return fmt.Sprintf("Placement: %s%s; read back from /proc at every window: server %s, database %s, generator %s.",
		p.Placement, mask, p.ReadBack["server"], p.ReadBack["database"], p.ReadBack["generator"])
}

// placementKey is what two runs must share to have placed their processes
// alike: the mode and the lanes, not whether auto chose them. A journal
// from before placement was recorded ran shared.
func placementKey(p *analysis.Placement) string {
	if p == nil || !p.IsLanes() {
		return plan.PlacementShared
	}
	pl := p.Placement
	pl.Auto = false
	return pl.String()
}
