package profiling

import (
	"sort"

	"github.com/google/pprof/profile"
)

// FlameNode is one frame of a flame graph: the stacks of a profile merged
// from the root, each frame's figure per request (its cumulative cost
// through this path). In a differential graph (DiffFlame) Base is the
// step's first side and Value its second.
type FlameNode struct {
	Name     string       `json:"name"`
	Value    float64      `json:"value"`
	Base     float64      `json:"base,omitempty"`
	Children []*FlameNode `json:"children,omitempty"`
}

// Flame merges a profile's stacks into a tree, per request, rooted at a
// node named "all". Frames below minShare of the whole are cut (their
// cost stays in their parent's figure), which bounds the tree's size;
// inlined frames are frames of their own.
func Flame(p *profile.Profile, m Measure, requests int64, minShare float64) (*FlameNode, error) {
	s, err := Summarize(p, m, requests) // checks the measure and the requests
	if err != nil {
		return nil, err
	}
	vi, scale, _ := valueIndex(p, m)
	per := scale / float64(requests)
	root := &FlameNode{Name: "all"}
	index := map[*FlameNode]map[string]*FlameNode{}
	for _, smp := range p.Sample {
		v := float64(smp.Value[vi]) * per
		if v == 0 {
			continue
		}
		cur := root
		cur.Value += v
		for i := len(smp.Location) - 1; i >= 0; i-- {
			loc := smp.Location[i]
			for li := len(loc.Line) - 1; li >= 0; li-- { // outermost inlined frame first
				name := "?"
				if fn := loc.Line[li].Function; fn != nil {
					name = fn.Name
				}
				kids := index[cur]
				if kids == nil {
					kids = map[string]*FlameNode{}
					index[cur] = kids
				}
				next := kids[name]
				if next == nil {
					next = &FlameNode{Name: name}
					kids[name] = next
					cur.Children = append(cur.Children, next)
				}
				next.Value += v
				cur = next
			}
		}
	}
	prune(root, s.Total*minShare, func(n *FlameNode) float64 { return n.Value })
	return root, nil
}

// prune cuts the children whose weight is under min, and orders the rest
// by name (a flame graph's order), recursively.
func prune(n *FlameNode, min float64, weight func(*FlameNode) float64) {
	kept := n.Children[:0]
	for _, c := range n.Children {
		if weight(c) >= min {
			prune(c, min, weight)
			kept = append(kept, c)
		}
	}
	n.Children = kept
	if len(kept) == 0 {
		n.Children = nil
	}
	sort.Slice(n.Children, func(i, j int) bool { return n.Children[i].Name < n.Children[j].Name })
}

// DiffFlame merges two flame graphs of a step by path: each node's Base
// from base, its Value from next (0 where a side lacks the path).
func DiffFlame(base, next *FlameNode) *FlameNode {
	out := &FlameNode{Name: "all"}
	merge(out, base, next)
	return out
}

func merge(out, b, n *FlameNode) {
	if b != nil {
		out.Base = b.Value
	}
	if n != nil {
		out.Value = n.Value
	}
	kids := map[string][2]*FlameNode{}
	var names []string
	for side, src := range []*FlameNode{b, n} {
		if src == nil {
			continue
		}
		for _, c := range src.Children {
			k, ok := kids[c.Name]
			if !ok {
				names = append(names, c.Name)
			}
			k[side] = c
			kids[c.Name] = k
		}
	}
	sort.Strings(names)
	for _, name := range names {
		k := kids[name]
		c := &FlameNode{Name: name}
		merge(c, k[0], k[1])
		out.Children = append(out.Children, c)
	}
}

// Scale multiplies every figure of the tree by f (ScaleTo's factor).
func (n *FlameNode) Scale(f float64) {
	n.Value *= f
	n.Base *= f
	for _, c := range n.Children {
		c.Scale(f)
	}
}
