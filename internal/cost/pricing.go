package cost

import (
	"bytes"
	_ "embed"
	"fmt"
)

// Kind says what a plan's vCPUs are.
type Kind string

// The kinds of vCPU a plan can have.
const (
	// KindDedicated: each vCPU is the tenant's own.
	KindDedicated Kind = "dedicated"
	// KindShared: vCPUs are shared with other tenants and may be throttled.
	KindShared Kind = "shared"
	// KindBurstable: a CPU-credit baseline; sustained use beyond it is
	// throttled or billed.
	KindBurstable Kind = "burstable"
)

// Note is what a report prints beside a figure on a plan of this kind; it
// is empty for dedicated vCPUs.
func (k Kind) Note() string {
	switch k {
	case KindShared:
		return "shared vCPUs: not dedicated cores; other tenants or the provider's CPU quota can throttle sustained load"
	case KindBurstable:
		return "burstable vCPUs: not dedicated cores; sustained load above the CPU-credit baseline is throttled or billed extra"
	}
	return ""
}

// Plan is one machine type a provider sells.
type Plan struct {
	Provider    string
	Name        string
	VCPU        int
	RAMGB       float64 // GiB: the snapshot's 0.25 GB is a 256 MB machine
	USDPerMonth float64
	Kind        Kind
	// Line is the plan's line in the pricing file.
	Line int
}

// RAMBytes is the plan's memory in bytes (RAMGB × 2³⁰).
func (p Plan) RAMBytes() float64 { return p.RAMGB * (1 << 30) }

// Source says where one provider's prices came from.
type Source struct {
	Provider string
	Note     string
}

// Pricing is a dated pricing table.
type Pricing struct {
	// Fetched is the date the prices were read, YYYY-MM-DD.
	Fetched  string
	Currency string
	Sources  []Source
	// Plans are in file order, which breaks ties between equal offers.
	Plans []Plan
}

// Providers returns the providers in the order they first appear in Plans.
func (p Pricing) Providers() []string {
	var out []string
	seen := map[string]bool{}
	for _, pl := range p.Plans {
		if !seen[pl.Provider] {
			seen[pl.Provider] = true
			out = append(out, pl.Provider)
		}
	}
	return out
}

// DefaultPricingFile is the name of the snapshot that ships with the binary.
const DefaultPricingFile = "pricing/2026-09-05.yaml"

//go:embed pricing/2026-09-05.yaml
var defaultPricing []byte

// DefaultPricing returns the pricing snapshot that ships with the binary.
func DefaultPricing() (Pricing, error) {
	p, err := LoadPricing(bytes.NewReader(defaultPricing))
	if err != nil {
		return Pricing{}, fmt.Errorf("built-in pricing %s is broken (a stackbench bug; pass --pricing FILE meanwhile): %w", DefaultPricingFile, err)
	}
	return p, nil
}
