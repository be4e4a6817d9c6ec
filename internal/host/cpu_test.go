package host

import (
	"testing"
	"time"
)

func TestReadCPUAdvances(t *testing.T) {
	a, err := ReadCPU()
	if err != nil {
		t.Fatal(err)
	}
	// Burn ~50 ms of our own CPU; the host's busy time must grow by some of it.
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	b, err := ReadCPU()
	if err != nil {
		t.Fatal(err)
	}
	if b.BusySecondsSince(a) <= 0 || b.IdleTicks < a.IdleTicks {
		t.Errorf("ReadCPU did not advance: %+v then %+v", a, b)
	}
}

func TestSuspendedSince(t *testing.T) {
	t0 := Clocks{Boot: 10 * time.Second, Monotonic: 9 * time.Second}
	awake := Clocks{Boot: 20 * time.Second, Monotonic: 19 * time.Second}
	if slept, s := awake.SuspendedSince(t0); s || slept != 0 {
		t.Errorf("no sleep: %v, %v", slept, s)
	}
	asleep := Clocks{Boot: 50 * time.Second, Monotonic: 19 * time.Second}
	if slept, s := asleep.SuspendedSince(t0); !s || slept != 30*time.Second {
		t.Errorf("30 s sleep: %v, %v", slept, s)
	}
	jitter := Clocks{Boot: 20*time.Second + SuspendTolerance, Monotonic: 19 * time.Second}
	if _, s := jitter.SuspendedSince(t0); s {
		t.Error("a gap of exactly the tolerance counts as suspended")
	}
	now := ReadClocks()
	if _, s := ReadClocks().SuspendedSince(now); s {
		t.Errorf("live clocks %+v look suspended", now)
	}
}
