package proc

import "time"

// member is what a group's accounting remembers of one of its processes.
// Its CPU figures are in nanoseconds.
type member struct {
	// base is the process's total before the window: its total at the
	// opening snapshot, or when first seen if it started earlier, or 0
	// when it started during the window.
	base int64
	last int64 // total at the last sample
	ppid int   // parent at the last sample
	// exact: its own CPU is read exactly (platform.ProcReader.ExactCPU),
	// not in ticks; fixed when it is first seen, so that its base and
	// its later totals are of one kind.
	exact bool
	// tickBase is base as its ticks gave it: where an exact member
	// goes on from when it loses its exact figure (the read failed:
	// the process is exiting).
	tickBase int64
}

// account turns samples of a group's processes into the CPU the group
// used since the opening snapshot. See the package documentation for the
// rules; the total is conserved when a member waits for another.
type account struct {
	// ownOnly counts utime+stime only, leaving out children the process
	// waited for: right for the harness, whose reaped children are stacks.
	ownOnly bool
	// openBootTicks is the opening snapshot's time in clock ticks since
	// boot, the clock of a process's start time.
	openBootTicks int64
	opened        bool

	members map[int]*member
	// settled is what processes that left the group contributed, in
	// nanoseconds.
	settled int64
	now     map[int]procStat // scratch: the members at this sample
}

func newAccount(ownOnly bool, openBootTicks int64) *account {
	return &account{
		ownOnly:       ownOnly,
		openBootTicks: openBootTicks,
		members:       map[int]*member{},
		now:           map[int]procStat{},
	}
}

// tickNanos is one platform tick in nanoseconds.
var tickNanos = int64(time.Second) / clockTicksPerSecond

// total is a process's CPU in nanoseconds: its own (exactNs when exact,
// else its ticks) plus, unless ownOnly, the children it waited for.
func (a *account) total(st procStat, exactNs int64, exact bool) int64 {
	own := st.OwnTicks * tickNanos
	if exact {
		own = exactNs
	}
	if a.ownOnly {
		return own
	}
	return own + st.ChildTicks*tickNanos
}

// observe takes one sample: current are the group's processes now, and
// exact their exact own CPU in nanoseconds (-1 where there is none);
// lookup finds any process on the machine in the same scan, to tell a
// process that left the group alive from one that exited.
func (a *account) observe(current []procStat, exact []int64, lookup func(pid int) (procStat, bool)) {
	clear(a.now)
	for _, st := range current {
		a.now[st.PID] = st
	}
	for pid, m := range a.members {
		if _, ok := a.now[pid]; ok {
			continue
		}
		a.settled += a.departure(pid, m, lookup)
	}
	for pid := range a.members {
		if _, ok := a.now[pid]; !ok {
			delete(a.members, pid)
		}
	}
	for i, st := range current {
		ns := int64(-1)
		if i < len(exact) {
			ns = exact[i]
		}
		if m, ok := a.members[st.PID]; ok {
			if m.exact && ns < 0 {
				// No exact figure any more (a second thread, or the read
				// failed): go on in ticks from its tick base, so that what
				// it used since its last exact sample still counts.
				m.base, m.last, m.exact = m.tickBase, a.total(st, 0, false), false
			}
			// Counters only grow; a smaller value means the pid was reused.
			m.last = max(m.last, a.total(st, ns, m.exact))
			m.ppid = st.PPID
			continue
		}
		t, ticks := a.total(st, ns, ns >= 0), a.total(st, 0, false)
		base, tickBase := t, ticks
		if a.opened && st.StartTicks >= a.openBootTicks {
			base, tickBase = 0, 0 // started during the window: all of its CPU is in it
		}
		a.members[st.PID] = &member{base: base, last: t, ppid: st.PPID, exact: ns >= 0, tickBase: tickBase}
	}
	a.opened = true
}

// departure is what a process gone from the group contributes.
func (a *account) departure(pid int, m *member, lookup func(int) (procStat, bool)) int64 {
	if st, ok := lookup(pid); ok {
		// Still on the machine but no longer in the group (re-parented
		// away): its CPU up to now was ours, what follows is not. An
		// exact member's figure now is not read: its last sample stands.
		if m.exact {
			return m.last - m.base
		}
		return max(a.total(st, 0, false), m.last) - m.base
	}
	if a.absorbed(m) {
		// Waited for by a member: its whole total moved into that
		// member's cutime/cstime, which we count, so only take back
		// what it had before the window.
		return -m.base
	}
	// Exited outside the group (its parent was not a member, e.g. the root
	// reaped by the harness): keep what it had at its last sample.
	return m.last - m.base
}

// absorbed reports whether the chain of last known parents of a departed
// process reaches a current member, so its CPU was waited for into the
// group. Parents that departed in the same sample are followed.
func (a *account) absorbed(m *member) bool {
	if a.ownOnly || !childTimes {
		return false
	}
	for range 64 {
		if _, ok := a.now[m.ppid]; ok {
			return true
		}
		parent, ok := a.members[m.ppid]
		if !ok {
			return false
		}
		m = parent
	}
	return false
}

// nanos returns the CPU the group used since the opening snapshot, in
// nanoseconds, floored at 0 (it can only go below through a pid reused
// within a window).
func (a *account) nanos() int64 {
	t := a.settled
	for _, m := range a.members {
		t += m.last - m.base
	}
	return max(t, 0)
}
