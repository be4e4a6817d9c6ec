package cost

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Estimate is one cell of the cost table: one stack, one provider, one load.
type Estimate struct {
	Stack    string
	Provider string
	LoadRPS  float64
	// OK is false when there is no plan; Note then says why.
	OK bool
	// Fit is the cheapest plan and machine count (zero when !OK).
	Fit Fit
	// Note is the plan's kind note (shared and burstable vCPUs are not
	// dedicated cores), or the reason there is no plan.
	Note string
}

// Table is the cost model's output, ready for a renderer.
type Table struct {
	// PricingFetched and Currency come from the pricing file.
	PricingFetched string
	Currency       string
	Sources        []Source
	Options        Options
	// Stacks are the stacks' capacities, in input order.
	Stacks []Capacity
	// Providers are in pricing-file order.
	Providers []string
	// Rows are ordered by stack, then provider, then load.
	Rows []Estimate
	// Caveats are printed beside the table.
	Caveats []string
}

// Model prices every stack at every load on every provider: per provider,
// the plan and machine count with the lowest monthly price that serve the
// load (see docs/cost.md). A stack without a usable capacity (an invalid
// or zero-throughput case in its mix) gets rows with OK false and the
// reason. Model fails only on invalid options.
func Model(stacks []StackMeasure, p Pricing, opt Options) (Table, error) {
	if err := opt.validate(); err != nil {
		return Table{}, err
	}
	t := Table{
		PricingFetched: p.Fetched,
		Currency:       p.Currency,
		Sources:        p.Sources,
		Options:        opt,
		Providers:      p.Providers(),
	}
	for _, s := range stacks {
		c := capacity(s, opt.Mix, opt.RAMHeadroom)
		t.Stacks = append(t.Stacks, c)
		for _, provider := range t.Providers {
			plans := plansOf(p, provider)
			for _, load := range opt.LoadsRPS {
				t.Rows = append(t.Rows, estimate(c, provider, plans, load, opt.TargetUtilisation))
			}
		}
	}
	t.Caveats = caveats(t, utilisationAssumption(opt), fmt.Sprintf("Capacity per core is the weighted harmonic mean of each case's rps per core (traffic mix: %s).", mixText(opt)))
	return t, nil
}

func estimate(c Capacity, provider string, plans []Plan, load, utilisation float64) Estimate {
	e := Estimate{Stack: c.Stack, Provider: provider, LoadRPS: load}
	if c.Problem != "" {
		e.Note = "no plan: " + c.Problem
		return e
	}
	f, err := choose(plans, c, load, utilisation)
	if err != nil {
		e.Note = "no plan: " + err.Error()
		return e
	}
	e.OK, e.Fit, e.Note = true, f, f.Plan.Kind.Note()
	return e
}

func plansOf(p Pricing, provider string) []Plan {
	var out []Plan
	for _, pl := range p.Plans {
		if pl.Provider == provider {
			out = append(out, pl)
		}
	}
	return out
}

// caveats lists what the table leaves out or assumes, for printing beside
// it; assumptions and perCore say how processes and their rate were
// counted.
func caveats(t Table, assumptions, perCore string) []string {
	return []string{
		"The database's CPU, memory and price are not included: add the database server or managed service yourself.",
		"Capacity comes from one machine's measurements in this run; a provider's vCPU (often one hyperthread, on some plans arm64) is not that machine's core, so measure on the target machine before buying.",
		"Shared and burstable vCPUs are not dedicated cores: sustained load may be throttled; the plans marked so are priced as if it were not.",
		assumptions,
		perCore,
		"Not included: the operating system's own memory, load balancers, bandwidth, storage, redundancy (N+1) and taxes.",
		fmt.Sprintf("Prices in %s per month from the pricing snapshot fetched %s; check them before quoting.", t.Currency, t.PricingFetched),
	}
}

// utilisationAssumption is the saturation model's assumption line.
func utilisationAssumption(o Options) string {
	return fmt.Sprintf("Assumptions: one server process per vCPU, each vCPU at most %.0f %% busy on average, %.1f × peak RSS of memory per process; a machine must hold at least one process.", o.TargetUtilisation*100, o.RAMHeadroom)
}

// mixText describes the traffic mix.
func mixText(o Options) string {
	if o.Mix == nil {
		return "equal weights over each stack's cases"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(o.Mix)) {
		parts = append(parts, fmt.Sprintf("%s %g", name, o.Mix[name]))
	}
	return "weights " + strings.Join(parts, ", ")
}
