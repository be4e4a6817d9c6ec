package load

import (
	"fmt"
	"regexp"
	"slices"
)

// Bounds of a mix: its routes, a route's weight, and the cycle (the sum of
// the weights once divided by their greatest common divisor), whose slots
// are a table the generator reads per request.
const (
	MaxMixRoutes = 64
	MaxMixWeight = 100_000
	maxMixCycle  = 1 << 20
)

// routeName is the form of a route's name: a case's name.
var routeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkMix checks a mix against its pool: every route named once, with a
// weight, and at least one request; every request on one of them.
func checkMix(mix []MixRoute, pool []Request) error {
	if len(mix) == 0 {
		return configErrorf("mix", "the request pool names routes (%q) but the run has no mix; give the routes' weights (--mix %s=1,…)", pool[0].Route, pool[0].Route)
	}
	if len(mix) > MaxMixRoutes {
		return configErrorf("mix", "%d routes; a mix has at most %d", len(mix), MaxMixRoutes)
	}
	if len(pool) == 0 {
		return configErrorf("mix", "a mix needs a request pool whose requests name their routes (--requests FILE, each line with \"route\")")
	}
	count := map[string]int{}
	for i, m := range mix {
		switch {
		case !routeName.MatchString(m.Name):
			return configErrorf("mix", "route %q: a route's name is letters, digits, '.', '_' and '-'", m.Name)
		case m.Weight < 1 || m.Weight > MaxMixWeight:
			return configErrorf("mix", "route %s: weight %d; want a whole number from 1 to %d", m.Name, m.Weight, MaxMixWeight)
		case slices.ContainsFunc(mix[:i], func(o MixRoute) bool { return o.Name == m.Name }):
			return configErrorf("mix", "route %s is named twice; give each route once", m.Name)
		}
		count[m.Name] = 0
	}
	for i, r := range pool {
		if _, ok := count[r.Route]; !ok {
			return configErrorf(fmt.Sprintf("requests[%d]", i), "route %q is not a route of the mix (%s)", r.Route, mixNames(mix))
		}
		count[r.Route]++
	}
	for _, m := range mix {
		if count[m.Name] == 0 {
			return configErrorf("mix", "route %s has no request in the pool; add one with \"route\": %q", m.Name, m.Name)
		}
	}
	if n := len(mixCycle(mix)); n > maxMixCycle {
		return configErrorf("mix", "the weights make a cycle of %d requests (their sum over their greatest common divisor); at most %d: use smaller weights", n, maxMixCycle)
	}
	return nil
}

func mixNames(mix []MixRoute) string {
	var s string
	for i, m := range mix {
		if i > 0 {
			s += ", "
		}
		s += m.Name
	}
	return s
}

// mixSlot is one request of the mix's cycle: its route, and how many
// requests of that route come before it in the cycle.
type mixSlot struct {
	route, ordinal int32
}

// mixCycle is the smooth weighted round-robin over the routes' weights,
// divided by their greatest common divisor: each route gets weight ÷ sum
// of the slots of one cycle, spread as evenly as the weights allow (each
// step, every route gains its weight and the one furthest ahead is sent and
// pays back the sum; ties go to the earlier route). After every whole cycle
// the counts match the weights exactly.
func mixCycle(mix []MixRoute) []mixSlot {
	g := 0
	for _, m := range mix {
		g = gcd(g, m.Weight)
	}
	if g == 0 {
		return nil
	}
	w := make([]int64, len(mix))
	var total int64
	for i, m := range mix {
		w[i] = int64(m.Weight / g)
		total += w[i]
	}
	if total > maxMixCycle {
		return make([]mixSlot, total) // only its length is read: checkMix refuses it
	}
	cur := make([]int64, len(mix))
	seen := make([]int32, len(mix))
	out := make([]mixSlot, 0, total)
	for range total {
		best := 0
		for i := range cur {
			cur[i] += w[i]
			if cur[i] > cur[best] {
				best = i
			}
		}
		cur[best] -= total
		out = append(out, mixSlot{route: int32(best), ordinal: seen[best]})
		seen[best]++
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// mixPlan maps the run's k-th request to a request of the pool: the
// cycle's slot (k+offset) mod its length names the route, and the route's
// requests are taken in order, round-robin. The pool is grouped by route
// (start, count). Everything is fixed before the workers start.
type mixPlan struct {
	cycle  []mixSlot
	weight []uint64 // per route, divided like the cycle's
	start  []uint64 // the route's first request in the run's pool
	count  []uint64
	offset uint64
	// before counts each route's slots before offset, so that each route
	// starts at its first request.
	before []uint64
}

// newMixPlan builds the plan of mix over pool and returns the pool
// reordered so that each route's requests are together, in their order.
func newMixPlan(mix []MixRoute, pool []Request, seed uint64) (*mixPlan, []Request) {
	m := &mixPlan{cycle: mixCycle(mix)}
	grouped := make([]Request, 0, len(pool))
	for _, route := range mix {
		m.start = append(m.start, uint64(len(grouped)))
		for _, r := range pool {
			if r.Route == route.Name {
				grouped = append(grouped, r)
			}
		}
		m.count = append(m.count, uint64(len(grouped))-m.start[len(m.start)-1])
		m.weight = append(m.weight, 0)
	}
	for _, s := range m.cycle {
		m.weight[s.route]++
	}
	m.offset = seed % uint64(len(m.cycle))
	m.before = make([]uint64, len(mix))
	for _, s := range m.cycle[:m.offset] {
		m.before[s.route]++
	}
	return m, grouped
}

// request is the index in the grouped pool of the run's k-th request, and
// its route.
func (m *mixPlan) request(k uint64) (index uint64, route int32) {
	n := uint64(len(m.cycle))
	p := k + m.offset
	s := m.cycle[p%n]
	// Whole cycles before this one each sent the route weight times;
	// the slots before the start were not sent.
	j := (p/n*m.weight[s.route] + uint64(s.ordinal) - m.before[s.route]) % m.count[s.route]
	return m.start[s.route] + j, s.route
}

// MixSequence is the routes of the first n requests of a mix with seed, in
// the order the generator takes them: every run with the same mix and seed
// takes this sequence (requests in flight on several connections may reach
// the server a little out of this order).
func MixSequence(mix []MixRoute, seed uint64, n int) []string {
	m := &mixPlan{cycle: mixCycle(mix)}
	if len(m.cycle) == 0 {
		return nil
	}
	m.offset = seed % uint64(len(m.cycle))
	out := make([]string, n)
	for k := range out {
		s := m.cycle[(uint64(k)+m.offset)%uint64(len(m.cycle))]
		out[k] = mix[s.route].Name
	}
	return out
}
