// Package cpuset reads, splits and applies sets of CPUs for placement:
// lanes (docs/placement.md): the lists of `taskset -c` and cgroup cpusets
// ("0-3,8"), the CPU affinity mask of this process, the default split of
// that mask into the generator's, the server's and the database's lanes,
// and an affinity set at spawn, so that a process and everything it starts
// run in their lane. It imports only internal/platform; lanes need Linux (macOS has no affinity).
package cpuset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxCPU bounds the CPU numbers a list may hold: the size of the kernel's
// default affinity mask (unix.CPUSet).
const maxCPU = 1023

// Set is a set of CPU numbers, sorted and without repeats. The zero Set is
// empty: no CPU, which placement reads as "not pinned".
type Set []int

// Of returns the set of the given CPUs.
func Of(cpus ...int) Set {
	s := slices.Clone(cpus)
	slices.Sort(s)
	return slices.Compact(s)
}

// Parse reads a CPU list as taskset -c and cpuset.cpus write it: CPU
// numbers and ranges separated by commas, "0-3,8,10-11". Spaces around the
// items are allowed; an empty list, a reversed range and a number above
// 1023 are errors.
func Parse(list string) (Set, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("an empty CPU list; write CPU numbers and ranges, e.g. 0-3,8")
	}
	var s Set
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		first, err := cpuNumber(lo, item)
		if err != nil {
			return nil, err
		}
		last := first
		if isRange {
			if last, err = cpuNumber(hi, item); err != nil {
				return nil, err
			}
			if last < first {
				return nil, fmt.Errorf("the range %q runs backwards; write %d-%d", item, last, first)
			}
		}
		for c := first; c <= last; c++ {
			s = append(s, c)
		}
	}
	return Of(s...), nil
}

func cpuNumber(text, item string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(text))
	switch {
	case err != nil || n < 0:
		return 0, fmt.Errorf("%q is not a CPU number or a range of them; write e.g. 0-3,8", item)
	case n > maxCPU:
		return 0, fmt.Errorf("CPU %d is above %d, the most an affinity mask holds here", n, maxCPU)
	}
	return n, nil
}

// String writes the set as a CPU list with ranges, "0-3,8"; "" when empty.
func (s Set) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Describe names the set for a message: "CPU 1", "CPUs 0-3".
func (s Set) Describe() string {
	if len(s) == 1 {
		return "CPU " + s.String()
	}
	return "CPUs " + s.String()
}

// Intersect returns the CPUs in both s and o.
func (s Set) Intersect(o Set) Set {
	var out Set
	for _, c := range s {
		if slices.Contains(o, c) {
			out = append(out, c)
		}
	}
	return out
}

// Minus returns the CPUs of s that are not in o.
func (s Set) Minus(o Set) Set {
	var out Set
	for _, c := range s {
		if !slices.Contains(o, c) {
			out = append(out, c)
		}
	}
	return out
}

// Union returns the CPUs in s or o.
func (s Set) Union(o Set) Set { return Of(append(slices.Clone(s), o...)...) }

// Equal reports whether s and o hold the same CPUs.
func (s Set) Equal(o Set) bool { return slices.Equal(s, o) }
