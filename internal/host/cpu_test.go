package host

import (
	"testing"
	"time"
)

func TestParseCPULine(t *testing.T) {
	got, err := parseCPULine([]byte("cpu  100 5 50 1000 20 3 2 7 40 0\ncpu0 50 2 25 500 10 1 1 3 20 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (CPUTimes{BusyTicks: 100 + 5 + 50 + 3 + 2 + 7, IdleTicks: 1000 + 20}); got != want {
		t.Errorf("parseCPULine = %+v, want %+v (guest is inside user already)", got, want)
	}
	// Old kernels have fewer columns.
	if got, err := parseCPULine([]byte("cpu 1 2 3 4")); err != nil || got.BusyTicks != 6 || got.IdleTicks != 4 {
		t.Errorf("four columns: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 x 3 4 5"} {
		if _, err := parseCPULine([]byte(bad)); err == nil {
			t.Errorf("parseCPULine(%q) accepted it", bad)
		}
	}
}

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
