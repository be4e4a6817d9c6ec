package proc

import (
	"os"
	"testing"
)

func TestReadStatSelf(t *testing.T) {
	var r statReader
	st, ok := r.read(os.Getpid())
	if !ok || st.PID != os.Getpid() || st.PPID != os.Getppid() || st.RSSBytes <= 0 || !st.Alive {
		t.Errorf("read(self) = %+v, %v", st, ok)
	}
	if _, ok := r.read(1 << 30); ok {
		t.Error("read of a pid that cannot exist succeeded")
	}
}

// proc builds a procStat for the accounting tests.
func ps(pid, ppid int, own, child, start int64) procStat {
	return procStat{PID: pid, PPID: ppid, Alive: true, OwnTicks: own, ChildTicks: child, StartTicks: start}
}

func TestAccount(t *testing.T) {
	const open = 1000 // window opens at tick 1000 since boot
	none := func(int) (procStat, bool) { return procStat{}, false }
	tests := []struct {
		name    string
		ownOnly bool
		samples [][]procStat
		lookup  func(int) (procStat, bool)
		want    int64
	}{
		{"steady tree", false, [][]procStat{
			{ps(10, 1, 100, 0, 5), ps(11, 10, 50, 0, 6)},
			{ps(10, 1, 130, 0, 5), ps(11, 10, 70, 0, 6)},
		}, none, 50},
		{"child waited for by a member: conserved", false, [][]procStat{
			{ps(10, 1, 100, 0, 5), ps(11, 10, 50, 0, 6)},
			{ps(10, 1, 110, 0, 5), ps(11, 10, 80, 0, 6)},
			{ps(10, 1, 120, 90, 5)}, // 11 exited with 90 ticks, now in 10's cutime
		}, none, 20 + 40},
		{"child born and waited for between samples", false, [][]procStat{
			{ps(10, 1, 100, 0, 5)},
			{ps(10, 1, 100, 25, 5)},
		}, none, 25},
		{"child born in the window counts from zero", false, [][]procStat{
			{ps(10, 1, 100, 0, 5)},
			{ps(10, 1, 100, 0, 5), ps(12, 10, 15, 0, open+3)},
		}, none, 15},
		{"process already running when first seen counts from then", false, [][]procStat{
			{ps(10, 1, 100, 0, 5)},
			{ps(10, 1, 100, 0, 5), ps(13, 10, 500, 0, 7)},
			{ps(10, 1, 100, 0, 5), ps(13, 10, 520, 0, 7)},
		}, none, 20},
		{"root exits, reaped outside: kept at its last sample, never negative", false, [][]procStat{
			{ps(10, 1, 100, 0, 5)},
			{ps(10, 1, 160, 0, 5)},
			{},
		}, none, 60},
		{"member re-parented away keeps what it used while ours", false, [][]procStat{
			{ps(10, 1, 100, 0, 5), ps(11, 10, 50, 0, 6)},
			{ps(10, 1, 100, 0, 5)},
		}, func(pid int) (procStat, bool) { return ps(11, 1, 65, 0, 6), pid == 11 }, 15},
		{"grandchild waited for by a child that was waited for", false, [][]procStat{
			{ps(10, 1, 100, 0, 5), ps(11, 10, 50, 0, 6), ps(12, 11, 20, 0, 7)},
			{ps(10, 1, 100, 50+10+20+30, 5)}, // 12 used 30 more, 11 used 10 more
		}, none, 40},
		{"own only ignores waited-for children", true, [][]procStat{
			{ps(10, 1, 100, 0, 5)},
			{ps(10, 1, 110, 500, 5)},
		}, none, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newAccount(tc.ownOnly, open)
			for _, s := range tc.samples {
				a.observe(s, nil, tc.lookup)
			}
			if got := a.nanos(); got != tc.want*tickNanos {
				t.Errorf("CPU = %d ns, want %d ticks", got, tc.want)
			}
		})
	}
}

func TestDescendants(t *testing.T) {
	all := []procStat{ps(1, 0, 0, 0, 0), ps(10, 1, 0, 0, 0), ps(11, 10, 0, 0, 0), ps(12, 11, 0, 0, 0), ps(13, 1, 0, 0, 0)}
	got := descendants(all, 10, nil)
	if len(got) != 3 || got[0] != 10 || got[1] != 11 || got[2] != 12 {
		t.Errorf("descendants(10) = %v, want [10 11 12]", got)
	}
	if got := descendants(all, 99, nil); len(got) != 0 {
		t.Errorf("descendants of a missing root = %v", got)
	}
}

// A member with an exact figure (a single-threaded process's schedstat) is
// counted in nanoseconds, not ticks; one that loses it (a second thread)
// goes on in ticks keeping what it used; its children's ticks still count.
func TestAccountExact(t *testing.T) {
	const open = 1000
	none := func(int) (procStat, bool) { return procStat{}, false }
	a := newAccount(false, open)
	a.observe([]procStat{ps(10, 1, 100, 0, 5), ps(20, 10, 7, 0, 6)}, []int64{-1, 70_004_000}, none)
	a.observe([]procStat{ps(10, 1, 103, 0, 5), ps(20, 10, 8, 0, 6)}, []int64{-1, 88_521_000}, none)
	want := 3*tickNanos + (88_521_000 - 70_004_000)
	if got := a.nanos(); got != want {
		t.Fatalf("exact member: %d ns, want %d", got, want)
	}
	// 20 gains a thread: no exact figure; it goes on in ticks from its
	// tick base (7), so the 5 ticks it used since its last exact sample
	// (8 → 13) count: 13 − 7 in all.
	a.observe([]procStat{ps(10, 1, 103, 0, 5), ps(20, 10, 13, 0, 6)}, []int64{-1, -1}, none)
	a.observe([]procStat{ps(10, 1, 103, 0, 5), ps(20, 10, 15, 0, 6)}, []int64{-1, -1}, none)
	if got, want := a.nanos(), 3*tickNanos+(15-7)*tickNanos; got != want {
		t.Fatalf("after the switch to ticks: %d ns, want %d", got, want)
	}
	// An exact child waited for by 10: its whole life moves into 10's
	// cutime, in ticks; only what it had before the window is taken back.
	b := newAccount(false, open)
	b.observe([]procStat{ps(10, 1, 100, 0, 5), ps(21, 10, 5, 0, 6)}, []int64{-1, 50_300_000}, none)
	b.observe([]procStat{ps(10, 1, 100, 9, 5)}, []int64{-1}, none) // 21 exited with 9 ticks
	if got, want := b.nanos(), 9*tickNanos-50_300_000; got != want {
		t.Errorf("absorbed exact child: %d ns, want %d", got, want)
	}
}
