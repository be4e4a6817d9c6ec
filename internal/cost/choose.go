package cost

import (
	"fmt"
	"math"
)

// Fit is one plan's offer for a load: how many machines, at what price.
type Fit struct {
	Plan Plan
	// ProcessesPerMachine is min(by CPU, by RAM): one server process per
	// vCPU, as many as the machine's RAM holds at Capacity.ProcessRAMBytes
	// each. It is at least 1, or the plan does not fit at all.
	ProcessesPerMachine int
	Machines            int
	// CentsPerMonth is Machines × the plan's price in cents.
	CentsPerMonth int64
}

// USDPerMonth is the fit's monthly price in dollars.
func (f Fit) USDPerMonth() float64 { return float64(f.CentsPerMonth) / 100 }

// fit returns the plan's offer for the load, or false when one machine
// cannot hold a single server process.
//
// Each process is given one vCPU, used at TargetUtilisation, so a machine
// serves ProcessesPerMachine × RPSPerCore × TargetUtilisation requests per
// second; a machine whose RAM limits it to fewer processes than vCPUs
// leaves the other vCPUs idle.
func fit(p Plan, c Capacity, loadRPS, utilisation float64) (Fit, bool) {
	byRAM := int(math.Floor(p.RAMBytes() / c.ProcessRAMBytes))
	perMachine := min(p.VCPU, byRAM)
	if perMachine < 1 {
		return Fit{}, false
	}
	processes := loadRPS / (c.RPSPerCore * utilisation)
	// A relative tolerance keeps an exact fit (40 processes on 10 machines
	// of 4) from becoming 11 machines through rounding.
	machines := int(math.Ceil(processes / float64(perMachine) * (1 - 1e-12)))
	machines = max(machines, 1)
	return Fit{
		Plan:                p,
		ProcessesPerMachine: perMachine,
		Machines:            machines,
		CentsPerMonth:       int64(machines) * int64(math.Round(p.USDPerMonth*100)),
	}, true
}

// better reports whether a beats b: lower price, then fewer machines
// (less to run). Anything else is a tie, which choose leaves to the plan
// listed first in the pricing file.
func better(a, b Fit) bool {
	if a.CentsPerMonth != b.CentsPerMonth {
		return a.CentsPerMonth < b.CentsPerMonth
	}
	return a.Machines < b.Machines
}

// choose returns the cheapest fit among plans (see better for ties), or an
// explanation when no plan can hold one process.
func choose(plans []Plan, c Capacity, loadRPS, utilisation float64) (Fit, error) {
	var best Fit
	found := false
	for _, p := range plans {
		f, ok := fit(p, c, loadRPS, utilisation)
		if ok && (!found || better(f, best)) {
			best, found = f, true
		}
	}
	if !found {
		return Fit{}, fmt.Errorf("no plan's machine holds one server process of %.0f MiB (peak RSS × headroom)", c.ProcessRAMBytes/(1<<20))
	}
	return best, nil
}
