package cost

import (
	"strings"
	"testing"
)

// At the SLO a process serves its capacity, at most, per vCPU: a process
// that used half a core at 2500 rps needs 40 processes for 100k rps (not 20,
// as capacity ÷ cores at 100 % would say, nor 80, as the 50 % utilisation
// target would), and one that used 2 cores at 8000 rps serves 4000 per vCPU.
func TestModelAtSLOPricesTheCapacityPerProcess(t *testing.T) {
	p := snapshot(t)
	opt := DefaultOptions()
	opt.LoadsRPS = []float64{100_000}
	tab, err := ModelAtSLO([]string{"light", "wide", "none"}, map[string][]SLOMeasure{
		"light": {{Case: "c", Confirmed: true, CapacityRPS: 2500, Cores: 0.5, PeakRSSBytes: 50 * mib}},
		"wide":  {{Case: "c", Confirmed: true, CapacityRPS: 8000, Cores: 2, PeakRSSBytes: 50 * mib}},
		"none":  {{Case: "c", Confirmed: false}},
	}, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Stacks[0].RPSPerCore; got != 2500 {
		t.Errorf("light: %v rps per vCPU, want 2500", got)
	}
	if got := tab.Stacks[1].RPSPerCore; got != 4000 {
		t.Errorf("wide: %v rps per vCPU, want 4000", got)
	}
	// Hetzner's CX53 holds 16 processes: 40 processes need 3 machines.
	if r := row(t, tab, "light", "Hetzner", 100_000); !r.OK || r.Fit.Machines*r.Fit.ProcessesPerMachine < 40 || (r.Fit.Machines-1)*r.Fit.ProcessesPerMachine >= 40 {
		t.Errorf("light at 100k on Hetzner: %d × %s (%d processes each), want the fewest machines holding 40 processes", r.Fit.Machines, r.Fit.Plan.Name, r.Fit.ProcessesPerMachine)
	}
	if r := row(t, tab, "none", "Hetzner", 100_000); r.OK || !strings.Contains(r.Note, "at the SLO") {
		t.Errorf("a stack without a confirmed capacity: %+v", r)
	}
	joined := strings.Join(tab.Caveats, "\n")
	if !strings.Contains(joined, "capacity within the SLO") || strings.Contains(joined, "% busy on average") {
		t.Errorf("caveats do not describe the SLO model:\n%s", joined)
	}
}
