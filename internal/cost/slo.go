package cost

import "fmt"

// SLOMeasure is one case of one stack at its capacity within an SLO
// (internal/capacity): the confirmed rate, and the server's CPU and
// memory over the confirmation windows at that rate.
type SLOMeasure struct {
	Case string
	// Confirmed is false when the search confirmed no capacity.
	Confirmed   bool
	CapacityRPS float64
	// Cores is the server's mean CPU use at capacity (CPU-seconds per
	// second); PeakRSSBytes its highest RSS there.
	Cores        float64
	PeakRSSBytes float64
}

// ModelAtSLO prices every stack at every load as Model does, but at its
// capacity within the SLO instead of its saturated throughput: a process
// serves its capacity rate and no more, whatever CPU it has left, since
// more would break the SLO; and a process that used more than one core at
// capacity serves capacity ÷ cores per vCPU. So each case's rate per vCPU
// is capacity ÷ max(1, cores at capacity), at full utilisation (the SLO,
// not a utilisation target, is the headroom), and the traffic mix is
// weighed as in Model. stacks maps each stack, in order, to its cases.
func ModelAtSLO(stacks []string, measures map[string][]SLOMeasure, p Pricing, opt Options) (Table, error) {
	in := make([]StackMeasure, 0, len(stacks))
	for _, s := range stacks {
		sm := StackMeasure{Stack: s}
		for _, m := range measures[s] {
			sm.Cases = append(sm.Cases, CaseMeasure{Case: m.Case, Valid: m.Confirmed, RPS: m.CapacityRPS,
				Cores: max(m.Cores, 1), PeakRSSBytes: m.PeakRSSBytes})
		}
		in = append(in, sm)
	}
	opt.TargetUtilisation = 1
	t, err := Model(in, p, opt)
	if err != nil {
		return t, err
	}
	// A case without a confirmed capacity is an invalid case to Model;
	// say what it is here.
	problem := map[string]string{}
	for i, s := range t.Stacks {
		for _, m := range measures[s.Stack] {
			if !m.Confirmed && s.Problem != "" {
				t.Stacks[i].Problem = fmt.Sprintf("case %q has no confirmed capacity at the SLO", m.Case)
				problem[s.Stack] = t.Stacks[i].Problem
				break
			}
		}
	}
	for i, r := range t.Rows {
		if msg, ok := problem[r.Stack]; ok && !r.OK {
			t.Rows[i].Note = "no plan: " + msg
		}
	}
	t.Caveats = caveats(t, fmt.Sprintf("Assumptions: one server process per vCPU serving at most its capacity within the SLO (capacity ÷ the cores it used there, when more than one), %.1f × peak RSS of memory per process; a machine must hold at least one process. The SLO was met on this host with the database and the load generator beside the server.", opt.RAMHeadroom),
		fmt.Sprintf("Capacity per vCPU is the weighted harmonic mean of each case's capacity per vCPU (traffic mix: %s); a case without a confirmed capacity leaves its stack unpriced.", mixText(opt)))
	return t, nil
}
