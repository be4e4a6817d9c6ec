package cost

import (
	"math"
	"strings"
	"testing"
)

const mib = 1 << 20

// oneCase is a stack measured on one case.
func oneCase(stack string, rps, cores, rssBytes float64) StackMeasure {
	return StackMeasure{Stack: stack, Cases: []CaseMeasure{{Case: "c", Valid: true, RPS: rps, Cores: cores, PeakRSSBytes: rssBytes}}}
}

func snapshot(t *testing.T) Pricing {
	t.Helper()
	p, err := DefaultPricing()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func row(t *testing.T, tab Table, stack, provider string, load float64) Estimate {
	t.Helper()
	for _, r := range tab.Rows {
		if r.Stack == stack && r.Provider == provider && r.LoadRPS == load {
			return r
		}
	}
	t.Fatalf("no row for %s on %s at %v rps", stack, provider, load)
	return Estimate{}
}

// The published model pooled RAM across machines and picked Fly's 256 MB
// machine for a 179 MB process; one process needs 179 × 1.5 = 268.5 MiB.
func TestPlanMustHoldOneProcess(t *testing.T) {
	p := snapshot(t)
	opt := DefaultOptions()
	opt.LoadsRPS = []float64{5000, 100_000}
	// 10 000 rps per core at 50 % → one process serves 5k rps; 100k needs 20.
	tab, err := Model([]StackMeasure{oneCase("node", 10_000, 1, 179*mib)}, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	fly := row(t, tab, "node", "Fly.io", 5000)
	if !fly.OK || fly.Fit.Plan.Name != "shared-cpu-1x 512MB" || fly.Fit.Machines != 1 || fly.Fit.USDPerMonth() != 3.32 {
		t.Errorf("Fly.io at 5k rps: %+v, want 1 × shared-cpu-1x 512MB at $3.32 (the 256MB machine cannot hold 268.5 MiB)", fly)
	}
	if fly.Note != KindShared.Note() {
		t.Errorf("note = %q, want the shared-vCPU note", fly.Note)
	}
	// Pooling RAM, the published model bought 21 × 256MB = $42.42 here.
	// Per machine: ⌊2048 / 268.5⌋ = 7 processes on an 8x 2GB, 3 machines.
	big := row(t, tab, "node", "Fly.io", 100_000)
	if !big.OK || big.Fit.Plan.Name != "shared-cpu-8x 2GB" || big.Fit.Machines != 3 || math.Abs(big.Fit.USDPerMonth()-48.45) > 1e-9 {
		t.Errorf("Fly.io at 100k rps: %s × %d at $%.2f, want shared-cpu-8x 2GB × 3 at $48.45", big.Fit.Plan.Name, big.Fit.Machines, big.Fit.USDPerMonth())
	}
	for _, pl := range p.Plans {
		if pl.Name == "shared-cpu-1x 256MB" {
			if _, ok := fit(pl, tab.Stacks[0], 5000, 0.5); ok {
				t.Errorf("the 256MB plan fits a %.1f MiB process", tab.Stacks[0].ProcessRAMBytes/mib)
			}
		}
		if pl.Name == "shared-cpu-8x 2GB" {
			// RAM, not CPU, limits this machine: ⌊2048 / 268.5⌋ = 7 < 8 vCPUs.
			f, ok := fit(pl, tab.Stacks[0], 100_000, 0.5)
			if !ok || f.ProcessesPerMachine != 7 || f.Machines != 3 {
				t.Errorf("shared-cpu-8x 2GB: %+v, want 7 processes per machine, ⌈20/7⌉ = 3 machines", f)
			}
		}
	}
}

// Hand-computed against the snapshot: 2000 rps per core, 150 MiB per
// process, 20k rps → 20 processes.
func TestModelHandComputed(t *testing.T) {
	opt := DefaultOptions()
	opt.LoadsRPS = []float64{20_000}
	tab, err := Model([]StackMeasure{oneCase("go", 4000, 2, 100*mib)}, snapshot(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		provider, plan string
		machines       int
		usd            float64
		note           string
	}{
		// CX33: 5 × 9.99 beats CX43 3 × 18.49 = 55.47 and CAX21 5 × 12.49.
		{"Hetzner", "CX33", 5, 49.95, KindShared.Note()},
		// 40.40 three ways (20 × 256MB, 10 × 2x 512MB, 5 × 4x 1GB): fewest machines wins.
		{"Fly.io", "shared-cpu-4x 1GB", 5, 40.40, KindShared.Note()},
		{"AWS", "t4g.small", 10, 124.10, KindBurstable.Note()},
	}
	for _, w := range want {
		r := row(t, tab, "go", w.provider, 20_000)
		if !r.OK || r.Fit.Plan.Name != w.plan || r.Fit.Machines != w.machines || math.Abs(r.Fit.USDPerMonth()-w.usd) > 1e-9 || r.Note != w.note {
			t.Errorf("%s: %s × %d at $%.2f (%q), want %s × %d at $%.2f", w.provider, r.Fit.Plan.Name, r.Fit.Machines, r.Fit.USDPerMonth(), r.Note, w.plan, w.machines, w.usd)
		}
	}
	if len(tab.Rows) != 3 || len(tab.Caveats) == 0 || tab.PricingFetched != "2026-09-05" {
		t.Errorf("table: %d rows, %d caveats, fetched %q", len(tab.Rows), len(tab.Caveats), tab.PricingFetched)
	}
}

func TestCapacityIsHarmonicNotArithmetic(t *testing.T) {
	s := StackMeasure{Stack: "s", Cases: []CaseMeasure{
		{Case: "fast", Valid: true, RPS: 2000, Cores: 2, PeakRSSBytes: 50 * mib}, // 1000 per core
		{Case: "slow", Valid: true, RPS: 100, Cores: 1, PeakRSSBytes: 80 * mib},  // 100 per core
	}}
	big := []Plan{{Provider: "P", Name: "one", VCPU: 1, RAMGB: 64, USDPerMonth: 1, Kind: KindDedicated}}
	opt := DefaultOptions()
	opt.LoadsRPS = []float64{20_000}
	tab, err := Model([]StackMeasure{s}, Pricing{Plans: big}, opt)
	if err != nil {
		t.Fatal(err)
	}
	c := tab.Stacks[0]
	if want := 2 / (1.0/1000 + 1.0/100); math.Abs(c.RPSPerCore-want) > 1e-9 {
		t.Errorf("rps per core = %v, want the harmonic mean %v (the arithmetic mean would be 550)", c.RPSPerCore, want)
	}
	if c.PeakRSSBytes != 80*mib || c.ProcessRAMBytes != 120*mib {
		t.Errorf("RSS %v, process RAM %v; want the highest peak (80 MiB) × 1.5", c.PeakRSSBytes, c.ProcessRAMBytes)
	}
	// 20 000 / (181.8… × 0.5) = 220 processes; the arithmetic mean would say 73.
	if r := row(t, tab, "s", "P", 20_000); r.Fit.Machines != 220 {
		t.Errorf("machines = %d, want 220", r.Fit.Machines)
	}

	opt.Mix = map[string]float64{"fast": 3, "slow": 1}
	tab, err = Model([]StackMeasure{s}, Pricing{Plans: big}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := 4 / (3.0/1000 + 1.0/100); math.Abs(tab.Stacks[0].RPSPerCore-want) > 1e-9 {
		t.Errorf("weighted rps per core = %v, want %v", tab.Stacks[0].RPSPerCore, want)
	}
}

func TestChooseTies(t *testing.T) {
	c := Capacity{RPSPerCore: 1000, ProcessRAMBytes: 100 * mib}
	plans := []Plan{
		{Name: "one-vcpu", VCPU: 1, RAMGB: 1, USDPerMonth: 5},
		{Name: "two-vcpu", VCPU: 2, RAMGB: 1, USDPerMonth: 10},
		{Name: "two-vcpu-again", VCPU: 2, RAMGB: 1, USDPerMonth: 10},
	}
	// 2000 rps → 4 processes: 4 × $5 or 2 × $10; the same price, fewer machines wins,
	// and between two equal offers the plan listed first.
	f, err := choose(plans, c, 2000, 0.5)
	if err != nil || f.Plan.Name != "two-vcpu" || f.Machines != 2 || f.CentsPerMonth != 2000 {
		t.Errorf("choose = %+v, %v; want 2 × two-vcpu for $20", f, err)
	}
	// Exactly 40 processes on 4-vCPU machines is 10 machines, not 11.
	f, err = choose([]Plan{{Name: "four", VCPU: 4, RAMGB: 8, USDPerMonth: 1}}, Capacity{RPSPerCore: 1000.0 / 3, ProcessRAMBytes: mib}, 40_000.0/6, 0.5)
	if err != nil || f.Machines != 10 {
		t.Errorf("exact fit: %+v, %v; want 10 machines", f, err)
	}
	// The smallest load still needs one machine.
	if f, _ := choose(plans, c, 1, 0.5); f.Machines != 1 || f.Plan.Name != "one-vcpu" {
		t.Errorf("1 rps: %+v, want one one-vcpu machine", f)
	}
	if _, err := choose(plans, Capacity{RPSPerCore: 1000, ProcessRAMBytes: 2000 * mib}, 1000, 0.5); err == nil || !strings.Contains(err.Error(), "2000 MiB") {
		t.Errorf("a 2000 MiB process on 1 GiB machines: %v, want an explanation", err)
	}
}

func TestStackWithoutCapacityGetsNoPlan(t *testing.T) {
	stacks := []StackMeasure{
		oneCase("zero", 0, 1, 50*mib),
		{Stack: "broken", Cases: []CaseMeasure{{Case: "c", Valid: false, RPS: 5000, Cores: 1, PeakRSSBytes: 50 * mib}}},
		oneCase("fine", 5000, 1, 50*mib),
	}
	tab, err := Model(stacks, snapshot(t), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{"zero": "served no requests", "broken": "is invalid"}
	for _, r := range tab.Rows {
		if r.Stack == "fine" {
			if !r.OK {
				t.Errorf("fine stack has no plan: %+v", r)
			}
			continue
		}
		if r.OK || !strings.HasPrefix(r.Note, "no plan: ") || !strings.Contains(r.Note, reasons[r.Stack]) || r.Fit.Machines != 0 {
			t.Errorf("%s on %s: %+v, want no plan because it %s", r.Stack, r.Provider, r, reasons[r.Stack])
		}
	}
	if len(tab.Rows) != 3*3*4 {
		t.Errorf("%d rows, want 3 stacks × 3 providers × 4 loads", len(tab.Rows))
	}
}

func TestMixProblems(t *testing.T) {
	s := StackMeasure{Stack: "s", Cases: []CaseMeasure{
		{Case: "a", Valid: true, RPS: 1000, Cores: 1, PeakRSSBytes: mib},
		{Case: "bad", Valid: false},
	}}
	opt := DefaultOptions()
	opt.Mix = map[string]float64{"a": 1, "bad": 0}
	if c := capacity(s, opt.Mix, 1.5); c.Problem != "" || c.RPSPerCore != 1000 {
		t.Errorf("an invalid case with weight 0: %+v, want it ignored", c)
	}
	if c := capacity(s, map[string]float64{"a": 1, "missing": 1}, 1.5); !strings.Contains(c.Problem, `"missing" of the traffic mix was not measured`) {
		t.Errorf("a mix case not measured: problem %q", c.Problem)
	}
	if c := capacity(s, nil, 1.5); !strings.Contains(c.Problem, `"bad" is invalid`) {
		t.Errorf("equal weights over an invalid case: problem %q", c.Problem)
	}
}

func TestOptionsValidation(t *testing.T) {
	bad := []func(*Options){
		func(o *Options) { o.LoadsRPS = nil },
		func(o *Options) { o.LoadsRPS = []float64{5000, -1} },
		func(o *Options) { o.TargetUtilisation = 0 },
		func(o *Options) { o.TargetUtilisation = 1.2 },
		func(o *Options) { o.RAMHeadroom = 0.9 },
		func(o *Options) { o.Mix = map[string]float64{"a": 0} },
		func(o *Options) { o.Mix = map[string]float64{"a": 1, "b": -1} },
	}
	for i, change := range bad {
		o := DefaultOptions()
		change(&o)
		if _, err := Model(nil, Pricing{}, o); err == nil {
			t.Errorf("bad options %d (%+v) accepted", i, o)
		}
	}
	if _, err := Model(nil, Pricing{}, DefaultOptions()); err != nil {
		t.Errorf("default options rejected: %v", err)
	}
}
