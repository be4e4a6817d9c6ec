package cost

import (
	"errors"
	"strings"
	"testing"
)

func TestDefaultPricingLoads(t *testing.T) {
	p, err := DefaultPricing()
	if err != nil {
		t.Fatal(err)
	}
	if p.Fetched != "2026-09-05" || p.Currency != "USD" || len(p.Plans) != 32 || len(p.Sources) != 3 {
		t.Fatalf("snapshot: fetched %q, currency %q, %d plans, %d sources; want 2026-09-05, USD, 32, 3",
			p.Fetched, p.Currency, len(p.Plans), len(p.Sources))
	}
	if got := strings.Join(p.Providers(), ","); got != "Hetzner,Fly.io,AWS" {
		t.Errorf("providers = %s", got)
	}
	want := map[string]Plan{
		"shared-cpu-1x 256MB": {Provider: "Fly.io", Name: "shared-cpu-1x 256MB", VCPU: 1, RAMGB: 0.25, USDPerMonth: 2.02, Kind: KindShared},
		"t4g.small":           {Provider: "AWS", Name: "t4g.small", VCPU: 2, RAMGB: 2, USDPerMonth: 12.41, Kind: KindBurstable},
		"c8g.xlarge":          {Provider: "AWS", Name: "c8g.xlarge", VCPU: 4, RAMGB: 8, USDPerMonth: 116.80, Kind: KindDedicated},
		"CAX11 (arm64)":       {Provider: "Hetzner", Name: "CAX11 (arm64)", VCPU: 2, RAMGB: 4, USDPerMonth: 6.99, Kind: KindShared},
	}
	for _, pl := range p.Plans {
		if w, ok := want[pl.Name]; ok {
			w.Line = pl.Line
			if pl != w || pl.Line == 0 {
				t.Errorf("plan %s = %+v, want %+v with its line", pl.Name, pl, w)
			}
			delete(want, pl.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("plans missing from the snapshot: %v", want)
	}
	if p.Plans[8].RAMBytes() != 256<<20 {
		t.Errorf("%s RAM = %v bytes, want 256 MiB", p.Plans[8].Name, p.Plans[8].RAMBytes())
	}
}

const userPricing = `fetched: 2026-10-01
currency: EUR
sources:
  - {provider: Acme, note: "acme.example pricing page"}
plans:
  - {provider: Acme, plan: small, vcpu: 2, ram_gb: 4, usd_per_month: 5, kind: shared}
  - {provider: Acme, plan: big, vcpu: -1, ram_gb: 4, usd_per_month: 5, kind: shared}
  - {provider: Acme, plan: odd, vcpu: 2, ram_gb: "4", usd_per_month: 0, kind: dedicated}
  - provider: Acme
    plan: small
    vcpu: 1.5
    ram_gb: 1
    usd_per_month: 3
    kind: fast
    colour: blue
  - {provider: Other, plan: x, vcpu: 1, ram_gb: 1, kind: shared}
`

func TestLoadPricingReportsEveryProblemWithItsLine(t *testing.T) {
	_, err := LoadPricing(strings.NewReader(userPricing))
	var pe *PricingError
	if !errors.As(err, &pe) {
		t.Fatalf("LoadPricing: %v, want a *PricingError", err)
	}
	want := []struct {
		line  int
		field string
		text  string
	}{
		{7, "plans[1].vcpu", "whole number > 0"},
		{8, "plans[2].ram_gb", "number > 0"},
		{8, "plans[2].usd_per_month", "number > 0"},
		{9, "plans[3]", "listed twice (first on line 6)"},
		{11, "plans[3].vcpu", "whole number > 0"},
		{14, "plans[3].kind", "shared, burstable or dedicated"},
		{15, "plans[3]", `unknown key "colour"`},
		{16, "plans[4]", `missing key "usd_per_month"`},
		{16, "sources", `provider "Other" has no entry under sources`},
	}
	if len(pe.Problems) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(pe.Problems), len(want), err)
	}
	for i, w := range want {
		p := pe.Problems[i]
		if p.Line != w.line || p.Field != w.field || !strings.Contains(p.Message, w.text) {
			t.Errorf("problem %d = %v, want line %d: %s: …%s…", i, p, w.line, w.field, w.text)
		}
	}
	if !strings.Contains(err.Error(), "line 14: plans[3].kind") {
		t.Errorf("error text does not name the line: %v", err)
	}
}

func TestLoadPricingAcceptsAValidUserFile(t *testing.T) {
	src := "fetched: 2026-10-01\ncurrency: EUR\nsources:\n  - {provider: Acme, note: n}\nplans:\n  - {provider: Acme, plan: s, vcpu: 2, ram_gb: 4, usd_per_month: 5, kind: shared}\n"
	p, err := LoadPricing(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{Provider: "Acme", Name: "s", VCPU: 2, RAMGB: 4, USDPerMonth: 5, Kind: KindShared, Line: 6}
	if len(p.Plans) != 1 || p.Plans[0] != want || p.Currency != "EUR" {
		t.Errorf("LoadPricing = %+v, want one plan %+v", p, want)
	}
}

func TestLoadPricingRejectsBrokenFiles(t *testing.T) {
	cases := map[string]string{
		"not YAML":      "plans: [",
		"empty":         "",
		"not a mapping": "- 1\n",
		"bad date":      "fetched: 5th of May\ncurrency: USD\nsources: [{provider: A, note: n}]\nplans: [{provider: A, plan: p, vcpu: 1, ram_gb: 1, usd_per_month: 1, kind: shared}]\n",
		"no plans":      "fetched: 2026-01-01\ncurrency: USD\nsources: [{provider: A, note: n}]\nplans: []\n",
		"repeated key":  "fetched: 2026-01-01\nfetched: 2026-01-02\ncurrency: USD\nsources: [{provider: A, note: n}]\nplans: [{provider: A, plan: p, vcpu: 1, ram_gb: 1, usd_per_month: 1, kind: shared}]\n",
	}
	for name, src := range cases {
		if _, err := LoadPricing(strings.NewReader(src)); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("%s: LoadPricing error = %v, want one that names a line", name, err)
		}
	}
}
