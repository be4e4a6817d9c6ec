package plan

import (
	"hash/fnv"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

var mixKeys = []string{"name", "of", "seed", "call_routes"}

const mixExample = "- mix: {name: storefront, of: {user: 60, list: 30, create-order: 10}}"

// isMixItem reports whether a cases item is a mix ({mix: {...}}).
func isMixItem(n *yaml.Node) bool {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == "mix" {
			return true
		}
	}
	return false
}

// mixCase reads a mix: a case whose requests are other cases' requests,
// interleaved by weight. Its routes are checked against the workload's
// cases when all are read (resolveMixes).
func (p *parser) mixCase(n *yaml.Node) (workload.Case, bool) {
	before := len(p.problems)
	var c workload.Case
	outer, ok := p.fields(n, "a mix case", []string{"mix"}, mixExample)
	if !ok {
		return c, false
	}
	m, ok := p.fields(outer.get("mix"), "mix", mixKeys, "mix: {name: storefront, of: {user: 60, list: 30}}")
	if !ok {
		return c, false
	}
	if v := m.get("name"); v != nil {
		c.Name, _ = p.ident(v, "mix", "storefront")
	} else {
		p.addf(m.node, "this mix has no name; add name: a short name such as storefront")
	}
	of := deref(m.get("of"))
	switch {
	case of == nil:
		p.addf(m.node, "mix %s has no routes; add of: {case: weight, …}, e.g. of: {user: 60, list: 30}", c.Name)
	case of.Kind != yaml.MappingNode || len(of.Content) == 0:
		p.addf(of, "of must be a mapping of case names to weights, not %s; write of: {user: 60, list: 30}", describe(of))
	default:
		seen := map[string]bool{}
		for i := 0; i+1 < len(of.Content); i += 2 {
			k, v := deref(of.Content[i]), deref(of.Content[i+1])
			name, ok := p.str(k, "a route of the mix", "user: 60")
			if !ok {
				continue
			}
			if seen[name] {
				p.addf(k, "route %s appears twice in mix %s; keep one", name, c.Name)
				continue
			}
			seen[name] = true
			w, ok := p.atLeast(v, "the weight of "+name, 1, name+": 60")
			if ok && w > load.MaxMixWeight {
				p.addf(v, "the weight of %s is %d; at most %d (weights are relative: 60/30/10 is 6/3/1)", name, w, load.MaxMixWeight)
				ok = false
			}
			if ok {
				c.Mix = append(c.Mix, workload.MixPart{Case: name, Weight: w})
			}
		}
		if len(c.Mix) > load.MaxMixRoutes {
			p.addf(of, "mix %s has %d routes; at most %d", c.Name, len(c.Mix), load.MaxMixRoutes)
		}
	}
	c.MixSeed = mixSeed(c.Name)
	if v := m.get("seed"); v != nil {
		if s, ok := p.atLeast(v, "seed", 0, "seed: 1"); ok {
			c.MixSeed = uint64(s)
		}
	}
	if v := m.get("call_routes"); v != nil {
		c.CallRoutes, _ = p.boolean(v, "call_routes")
	}
	c.Compare = workload.CompareNone
	return c, len(p.problems) == before
}

// mixSeed is a mix's default seed: the same for every stack and every
// run, from the templates' seed and the mix's name.
func mixSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return scenario.Seed ^ h.Sum64()
}

// resolveMixes checks each mix's routes against the workload's cases —
// each a case with an HTTP request, not itself a mix — and gives the mix
// what its routes have: a database, inserts (the reset before each of its
// windows), templated requests. nodes are the mixes' items, by name.
func (p *parser) resolveMixes(cases []workload.Case, nodes map[string]*yaml.Node) {
	byName := map[string]workload.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	for i := range cases {
		c := &cases[i]
		if !c.IsMix() {
			continue
		}
		for _, part := range c.Mix {
			r, ok := byName[part.Case]
			switch {
			case !ok:
				p.addf(nodes[c.Name], "mix %s: route %q is not a case of the workload; %s", c.Name, part.Case, didYouMean(part.Case, caseNamesOf(cases)))
				continue
			case r.IsMix():
				p.addf(nodes[c.Name], "mix %s: route %s is a mix itself; name the cases it mixes instead", c.Name, part.Case)
				continue
			case r.IsFlow():
				p.addf(nodes[c.Name], "mix %s: route %s is a flow; a mix's routes are single requests (a flow's users run on connections of their own)", c.Name, part.Case)
				continue
			case r.Path == "":
				p.addf(nodes[c.Name], "mix %s: route %s has only a gRPC request; a mix sends HTTP requests (add path: to the case)", c.Name, part.Case)
				continue
			}
			c.Inserts = c.Inserts || r.Inserts
			c.Database = c.Database || r.Database
			c.Templated = c.Templated || r.Templated
		}
	}
}

func caseNamesOf(cases []workload.Case) []string {
	out := make([]string, len(cases))
	for i, c := range cases {
		out[i] = c.Name
	}
	return out
}
