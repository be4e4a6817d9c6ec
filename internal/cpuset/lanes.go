package cpuset

import (
	"fmt"
	"slices"
)

// Lanes are the CPUs of the three parties of a window under placement:
// lanes: the load generator, the server under test and the database.
type Lanes struct {
	Generator Set
	Server    Set
	Database  Set
}

// Split is the default split of CPUs into lanes. cores are the CPUs the
// process may use grouped by physical core (hyper-threads of one core
// together; see Cores), in order. With three cores or more whole cores are
// split, so that no two lanes share a core's execution units: the generator
// gets about a quarter of them, the database about a quarter, each at least
// one, and the server the rest, the lowest-numbered ones. With fewer cores
// the CPUs themselves are split the same way. Three lanes need three CPUs:
// on two, the generator gets one and the server and the database share the
// other (Lanes.Sharing says so); on one, all three share it.
func Split(cores []Set) Lanes {
	units := slices.Clone(cores)
	if len(units) < 3 {
		units = nil
		for _, c := range cores {
			for _, cpu := range c {
				units = append(units, Of(cpu))
			}
		}
	}
	slices.SortFunc(units, func(a, b Set) int { return a[0] - b[0] })
	join := func(us []Set) Set {
		var s Set
		for _, u := range us {
			s = s.Union(u)
		}
		return s
	}
	switch n := len(units); n {
	case 0:
		return Lanes{}
	case 1:
		return Lanes{Generator: units[0], Server: units[0], Database: units[0]}
	case 2:
		return Lanes{Server: units[0], Database: units[0], Generator: units[1]}
	default:
		quarter := max(1, n/4)
		server := n - 2*quarter
		return Lanes{
			Server:    join(units[:server]),
			Database:  join(units[server : server+quarter]),
			Generator: join(units[server+quarter:]),
		}
	}
}

// Sharing lists the lanes that share CPUs, as sentences for a warning:
// "the server and the database share CPU 0". Empty when the lanes are
// disjoint.
func (l Lanes) Sharing() []string {
	parties := []struct {
		name string
		set  Set
	}{{"the generator", l.Generator}, {"the server", l.Server}, {"the database", l.Database}}
	var out []string
	for i := range parties {
		for j := i + 1; j < len(parties); j++ {
			if both := parties[i].set.Intersect(parties[j].set); len(both) > 0 {
				out = append(out, fmt.Sprintf("%s and %s share %s", parties[i].name, parties[j].name, both.Describe()))
			}
		}
	}
	return out
}
