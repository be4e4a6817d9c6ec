package cost

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Problem is one thing wrong in a pricing file.
type Problem struct {
	Line    int
	Field   string // for example plans[3].vcpu
	Message string
}

func (p Problem) String() string {
	return fmt.Sprintf("line %d: %s: %s", p.Line, p.Field, p.Message)
}

// PricingError lists every problem found in a pricing file, in file order.
type PricingError struct {
	Problems []Problem
}

func (e *PricingError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("pricing file has %d problem(s); fix them, or leave out --pricing to use the built-in snapshot:\n  %s",
		len(e.Problems), strings.Join(lines, "\n  "))
}

// LoadPricing reads and strictly validates a pricing file in the format of
// the built-in snapshot (see docs/cost.md): every key is required, unknown
// and repeated keys are errors, numbers must be positive and vcpu whole,
// kind one of shared, burstable, dedicated, (provider, plan) unique, and
// every provider listed under sources. A file with problems returns a
// *PricingError naming each problem with its line.
func LoadPricing(r io.Reader) (Pricing, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Pricing{}, fmt.Errorf("read pricing file: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Pricing{}, fmt.Errorf("pricing file is not valid YAML (%w); fix it, or leave out --pricing to use the built-in snapshot", err)
	}
	c := &checker{}
	p := c.pricing(&doc)
	if len(c.problems) > 0 {
		sort.SliceStable(c.problems, func(i, j int) bool { return c.problems[i].Line < c.problems[j].Line })
		return Pricing{}, &PricingError{Problems: c.problems}
	}
	return p, nil
}

// checker collects problems while walking the YAML tree.
type checker struct {
	problems []Problem
}

func (c *checker) add(line int, field, format string, args ...any) {
	c.problems = append(c.problems, Problem{Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) pricing(doc *yaml.Node) Pricing {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		c.add(1, "file", "is empty; expected keys fetched, currency, sources, plans")
		return Pricing{}
	}
	f := c.fields(doc.Content[0], "file", "fetched", "currency", "sources", "plans")
	if f == nil {
		return Pricing{}
	}
	var p Pricing
	if n := f["fetched"]; n != nil {
		p.Fetched = c.str(n, "fetched")
		if _, err := time.Parse(time.DateOnly, p.Fetched); p.Fetched != "" && err != nil {
			c.add(n.Line, "fetched", "%q is not a date of the form 2026-09-05", p.Fetched)
		}
	}
	if n := f["currency"]; n != nil {
		p.Currency = c.str(n, "currency")
	}
	if n := f["sources"]; n != nil {
		p.Sources = c.sources(n)
	}
	if n := f["plans"]; n != nil {
		p.Plans = c.plans(n)
	}
	c.everyProviderSourced(p)
	return p
}

func (c *checker) sources(n *yaml.Node) []Source {
	var out []Source
	for i, item := range c.list(n, "sources") {
		field := fmt.Sprintf("sources[%d]", i)
		f := c.fields(item, field, "provider", "note")
		if f == nil {
			continue
		}
		s := Source{}
		if v := f["provider"]; v != nil {
			s.Provider = c.str(v, field+".provider")
		}
		if v := f["note"]; v != nil {
			s.Note = c.str(v, field+".note")
		}
		out = append(out, s)
	}
	return out
}

func (c *checker) plans(n *yaml.Node) []Plan {
	var out []Plan
	seen := map[[2]string]int{}
	for i, item := range c.list(n, "plans") {
		field := fmt.Sprintf("plans[%d]", i)
		f := c.fields(item, field, "provider", "plan", "vcpu", "ram_gb", "usd_per_month", "kind")
		if f == nil {
			continue
		}
		pl := Plan{Line: item.Line}
		if v := f["provider"]; v != nil {
			pl.Provider = c.str(v, field+".provider")
		}
		if v := f["plan"]; v != nil {
			pl.Name = c.str(v, field+".plan")
		}
		if v := f["vcpu"]; v != nil {
			pl.VCPU = c.positiveInt(v, field+".vcpu")
		}
		if v := f["ram_gb"]; v != nil {
			pl.RAMGB = c.positiveNumber(v, field+".ram_gb")
		}
		if v := f["usd_per_month"]; v != nil {
			pl.USDPerMonth = c.positiveNumber(v, field+".usd_per_month")
		}
		if v := f["kind"]; v != nil {
			pl.Kind = c.kind(v, field+".kind")
		}
		key := [2]string{pl.Provider, pl.Name}
		if first, dup := seen[key]; dup && pl.Provider != "" && pl.Name != "" {
			c.add(item.Line, field, "plan %q of %s is listed twice (first on line %d)", pl.Name, pl.Provider, first)
		} else {
			seen[key] = item.Line
		}
		out = append(out, pl)
	}
	return out
}

func (c *checker) everyProviderSourced(p Pricing) {
	sourced := map[string]bool{}
	for _, s := range p.Sources {
		sourced[s.Provider] = true
	}
	for _, pl := range p.Plans {
		if pl.Provider != "" && !sourced[pl.Provider] {
			c.add(pl.Line, "sources", "provider %q has no entry under sources; say where its prices come from", pl.Provider)
			sourced[pl.Provider] = true // once per provider
		}
	}
}

// fields checks that n is a mapping with exactly the keys wanted, each
// once, and returns the value node of each key present (nil if n is not a
// mapping).
func (c *checker) fields(n *yaml.Node, field string, want ...string) map[string]*yaml.Node {
	if n.Kind != yaml.MappingNode {
		c.add(n.Line, field, "must be a mapping with keys %s", strings.Join(want, ", "))
		return nil
	}
	allowed := map[string]bool{}
	for _, w := range want {
		allowed[w] = true
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !allowed[k.Value]:
			c.add(k.Line, field, "unknown key %q; allowed keys are %s", k.Value, strings.Join(want, ", "))
		case out[k.Value] != nil:
			c.add(k.Line, field, "key %q is repeated", k.Value)
		default:
			out[k.Value] = v
		}
	}
	for _, w := range want {
		if out[w] == nil {
			c.add(n.Line, field, "missing key %q", w)
		}
	}
	return out
}

func (c *checker) list(n *yaml.Node, field string) []*yaml.Node {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		c.add(n.Line, field, "must be a non-empty list")
		return nil
	}
	return n.Content
}

func (c *checker) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		c.add(n.Line, field, "must be a non-empty text value")
		return ""
	}
	return n.Value
}

func (c *checker) positiveInt(n *yaml.Node, field string) int {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil || v <= 0 {
		c.add(n.Line, field, "must be a whole number > 0, got %q", n.Value)
		return 0
	}
	return v
}

func (c *checker) positiveNumber(n *yaml.Node, field string) float64 {
	v, err := strconv.ParseFloat(n.Value, 64)
	isNumber := n.Tag == "!!int" || n.Tag == "!!float"
	if n.Kind != yaml.ScalarNode || !isNumber || err != nil || !(v > 0) || math.IsInf(v, 0) {
		c.add(n.Line, field, "must be a number > 0, got %q", n.Value)
		return 0
	}
	return v
}

func (c *checker) kind(n *yaml.Node, field string) Kind {
	k := Kind(n.Value)
	if n.Kind != yaml.ScalarNode || (k != KindShared && k != KindBurstable && k != KindDedicated) {
		c.add(n.Line, field, "must be shared, burstable or dedicated, got %q", n.Value)
		return ""
	}
	return k
}
