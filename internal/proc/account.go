package proc

// member is what a group's accounting remembers of one of its processes.
type member struct {
	// baseTicks is the process's total before the window: its total at
	// the opening snapshot, or when first seen if it started earlier, or
	// 0 when it started during the window.
	baseTicks int64
	lastTicks int64 // total at the last sample
	ppid      int   // parent at the last sample
}

// account turns samples of a group's processes into the CPU ticks the
// group used since the opening snapshot. See the package documentation
// for the rules; the delta is conserved when a member waits for another.
type account struct {
	// ownOnly counts utime+stime only, leaving out children the process
	// waited for: right for the harness, whose reaped children are stacks.
	ownOnly bool
	// openBootTicks is the opening snapshot's time in clock ticks since
	// boot, the clock of a process's start time.
	openBootTicks int64
	opened        bool

	members map[int]*member
	// settledTicks is what processes that left the group contributed.
	settledTicks int64
	now          map[int]procStat // scratch: the members at this sample
}

func newAccount(ownOnly bool, openBootTicks int64) *account {
	return &account{
		ownOnly:       ownOnly,
		openBootTicks: openBootTicks,
		members:       map[int]*member{},
		now:           map[int]procStat{},
	}
}

func (a *account) total(st procStat) int64 {
	if a.ownOnly {
		return st.OwnTicks
	}
	return st.OwnTicks + st.ChildTicks
}

// observe takes one sample: current are the group's processes now;
// lookup finds any process on the machine in the same scan, to tell a
// process that left the group alive from one that exited.
func (a *account) observe(current []procStat, lookup func(pid int) (procStat, bool)) {
	clear(a.now)
	for _, st := range current {
		a.now[st.PID] = st
	}
	for pid, m := range a.members {
		if _, ok := a.now[pid]; ok {
			continue
		}
		a.settledTicks += a.departure(pid, m, lookup)
	}
	for pid := range a.members {
		if _, ok := a.now[pid]; !ok {
			delete(a.members, pid)
		}
	}
	for pid, st := range a.now {
		t := a.total(st)
		if m, ok := a.members[pid]; ok {
			// Counters only grow; a smaller value means the pid was reused.
			m.lastTicks = max(m.lastTicks, t)
			m.ppid = st.PPID
			continue
		}
		base := t
		if a.opened && st.StartTicks >= a.openBootTicks {
			base = 0 // started during the window: all of its CPU is in it
		}
		a.members[pid] = &member{baseTicks: base, lastTicks: t, ppid: st.PPID}
	}
	a.opened = true
}

// departure is what a process gone from the group contributes.
func (a *account) departure(pid int, m *member, lookup func(int) (procStat, bool)) int64 {
	if st, ok := lookup(pid); ok {
		// Still on the machine but no longer in the group (re-parented
		// away): its CPU up to now was ours, what follows is not.
		return max(a.total(st), m.lastTicks) - m.baseTicks
	}
	if a.absorbed(m) {
		// Waited for by a member: its whole total moved into that
		// member's cutime/cstime, which we count, so only take back
		// what it had before the window.
		return -m.baseTicks
	}
	// Exited outside the group (its parent was not a member, e.g. the root
	// reaped by the harness): keep what it had at its last sample.
	return m.lastTicks - m.baseTicks
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

// ticks returns the CPU ticks the group used since the opening snapshot,
// floored at 0 (it can only go below through a pid reused within a window).
func (a *account) ticks() int64 {
	t := a.settledTicks
	for _, m := range a.members {
		t += m.lastTicks - m.baseTicks
	}
	return max(t, 0)
}
