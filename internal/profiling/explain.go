package profiling

import (
	"math"
	"sort"
)

// MinSamples is the fewest samples a figure must rest on to be shown:
// below it, a per-request figure moves by more than a tenth from one
// window to the next (a count's relative error is about 1/√n).
const MinSamples = 100

// Change is how one function, package or group differs between the two
// sides of a step, per request.
type Change struct {
	Name string `json:"name"`
	// Package and Group are set for functions.
	Package string `json:"package,omitempty"`
	Group   string `json:"group,omitempty"`
	// Base and Next are the flat figures per request on the step's two
	// sides, Delta = Next − Base; BaseCum and NextCum the cumulative ones
	// (functions only).
	Base    float64 `json:"base"`
	Next    float64 `json:"next"`
	Delta   float64 `json:"delta"`
	BaseCum float64 `json:"base_cum,omitempty"`
	NextCum float64 `json:"next_cum,omitempty"`
	// Share is Delta ÷ the step's whole change (Explanation.Delta): the
	// part of it this row explains. Rows of opposite signs offset, so a
	// share can pass 100 % or be negative.
	Share float64 `json:"share"`
	// BaseSamples and NextSamples are the samples behind Base and Next.
	BaseSamples int64 `json:"base_samples"`
	NextSamples int64 `json:"next_samples"`
}

// Explanation is a step's difference in one measure, named.
type Explanation struct {
	Measure Measure `json:"measure"`
	Unit    string  `json:"unit"`
	// BaseTotal and NextTotal are the whole profiles per request; Delta
	// is their difference.
	BaseTotal   float64 `json:"base_total"`
	NextTotal   float64 `json:"next_total"`
	Delta       float64 `json:"delta"`
	BaseSamples int64   `json:"base_samples"`
	NextSamples int64   `json:"next_samples"`
	// Functions, Packages and Groups are the rows whose flat figure
	// changed most (by |Delta|, at most Top functions and packages), each
	// backed by MinSamples samples or more on one side at least.
	Functions []Change `json:"functions"`
	Packages  []Change `json:"packages"`
	Groups    []Change `json:"groups"`
	// Hidden counts the function rows left out for too few samples.
	Hidden int `json:"hidden"`
	// Callers are the functions whose cumulative figure (their own cost
	// and their callees') changed most, by |Delta| of it, each with
	// MinSamples cumulative samples or more on one side; a function on
	// nearly every stack on both sides (a goroutine's root, the server's
	// loop: 90 % of the total or more) is left out, as it only repeats the
	// whole change. Base, Next and Delta are the cumulative figures here,
	// and the samples the cumulative ones.
	Callers []Change `json:"callers"`
}

// rootShare is the share of a profile above which a function counts as
// on nearly every stack (Explanation.Callers).
const rootShare = 0.9

// Explain compares two summaries of the same measure, base the step's
// first stack and next its second, keeping the top rows of each kind.
func Explain(base, next Summary, top int) Explanation {
	e := Explanation{Measure: next.Measure, Unit: next.Unit, BaseTotal: base.Total, NextTotal: next.Total,
		Delta: next.Total - base.Total, BaseSamples: base.Samples, NextSamples: next.Samples}
	type side struct {
		fn   Function
		b, n Function
	}
	rows := map[string]*side{}
	for _, f := range base.Functions {
		rows[f.Name] = &side{fn: f, b: f}
	}
	for _, f := range next.Functions {
		if r := rows[f.Name]; r != nil {
			r.n = f
		} else {
			rows[f.Name] = &side{fn: f, n: f}
		}
	}
	pkgs, groups := map[string]*Change{}, map[string]*Change{}
	add := func(m map[string]*Change, name string, b, n Function) {
		c := m[name]
		if c == nil {
			c = &Change{Name: name}
			m[name] = c
		}
		c.Base += b.Flat
		c.Next += n.Flat
		c.BaseSamples += b.FlatSamples
		c.NextSamples += n.FlatSamples
	}
	var fns []Change
	for name, r := range rows {
		add(pkgs, r.fn.Package, r.b, r.n)
		add(groups, r.fn.Group, r.b, r.n)
		c := Change{Name: name, Package: r.fn.Package, Group: r.fn.Group, Base: r.b.Flat, Next: r.n.Flat,
			BaseCum: r.b.Cum, NextCum: r.n.Cum, BaseSamples: r.b.FlatSamples, NextSamples: r.n.FlatSamples}
		if c.Base == c.Next {
			continue // no change to name (a caller whose own cost is nil on both sides)
		}
		if max(c.BaseSamples, c.NextSamples) < MinSamples {
			e.Hidden++
			continue
		}
		fns = append(fns, c)
	}
	e.Functions = ranked(fns, e.Delta, top)
	var callers []Change
	for name, r := range rows {
		if max(r.b.CumSamples, r.n.CumSamples) < MinSamples || r.b.Cum == r.n.Cum {
			continue
		}
		if r.b.Cum >= rootShare*base.Total && r.n.Cum >= rootShare*next.Total {
			continue
		}
		callers = append(callers, Change{Name: name, Package: r.fn.Package, Group: r.fn.Group, Base: r.b.Cum, Next: r.n.Cum,
			BaseSamples: r.b.CumSamples, NextSamples: r.n.CumSamples})
	}
	e.Callers = ranked(callers, e.Delta, top)
	e.Packages = ranked(values(pkgs), e.Delta, top)
	e.Groups = ranked(values(groups), e.Delta, 0)
	return e
}

func values(m map[string]*Change) []Change {
	var out []Change
	for _, c := range m {
		if max(c.BaseSamples, c.NextSamples) >= MinSamples {
			out = append(out, *c)
		}
	}
	return out
}

// ranked sets each row's Delta and Share and keeps the top by |Delta|
// (all when top is 0).
func ranked(cs []Change, total float64, top int) []Change {
	for i := range cs {
		cs[i].Delta = cs[i].Next - cs[i].Base
		if total != 0 {
			cs[i].Share = cs[i].Delta / total
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		a, b := math.Abs(cs[i].Delta), math.Abs(cs[j].Delta)
		if a != b {
			return a > b
		}
		return cs[i].Name < cs[j].Name
	})
	if top > 0 && len(cs) > top {
		cs = cs[:top]
	}
	if cs == nil {
		cs = []Change{}
	}
	return cs
}
