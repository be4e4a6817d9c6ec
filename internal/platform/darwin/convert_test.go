package darwin

import (
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/platform"
)

// The conversions from kinfo_proc and proc_taskinfo values run on every OS.
// The values are hand-made in the shape of those structures (nobody has run
// stackbench on a Mac yet to record real ones).
func TestToProc(t *testing.T) {
	boot := time.Unix(1764500000, 250_000_000)
	k := kinfo{pid: 812, ppid: 1, pgid: 812, stat: 2, started: boot.Add(90*time.Minute + 3*time.Millisecond)}
	ti := taskInfo{user: 1500 * time.Millisecond, system: 250 * time.Millisecond, rssBytes: 9_437_184, threads: 3}
	got := toProc(k, ti, boot)
	want := platform.Proc{
		PID: 812, PPID: 1, PGID: 812, Alive: true,
		OwnTicks:   int64(1750 * time.Millisecond),
		StartTicks: int64(90*time.Minute + 3*time.Millisecond),
		RSSBytes:   9_437_184, Threads: 3,
	}
	if got != want {
		t.Errorf("toProc = %+v, want %+v", got, want)
	}
	k.stat = sZomb
	if toProc(k, ti, boot).Alive {
		t.Error("a zombie (SZOMB) counts as alive")
	}
	// A start time before the recorded boot (clock stepped back) is 0, not negative.
	k.started = boot.Add(-time.Second)
	if s := toProc(k, ti, boot).StartTicks; s != 0 {
		t.Errorf("start before boot = %d, want 0", s)
	}
	if ticksPerSecond != int64(time.Second) {
		t.Errorf("ticksPerSecond = %d, want nanoseconds", ticksPerSecond)
	}
}

func TestHostTicks(t *testing.T) {
	got := hostTicks(10, 1, 5, 100, 2, 0.5, 0.25, 0.25)
	want := platform.HostCPU{BusyTicks: 17 * int64(time.Second), IdleTicks: 102 * int64(time.Second), StealTicks: int64(time.Second) / 4}
	if got != want {
		t.Errorf("hostTicks = %+v, want %+v", got, want)
	}
}
