package host_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/proc"
)

// With STACKBENCH_HOST_HELPER=hog the test binary burns one core until
// killed (or for a minute at most), as a synthetic contender.
func TestMain(m *testing.M) {
	if os.Getenv("STACKBENCH_HOST_HELPER") == "hog" {
		go func() { time.Sleep(time.Minute); os.Exit(9) }()
		for {
		}
	}
	os.Exit(m.Run())
}

func startHog(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "STACKBENCH_HOST_HELPER=hog")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// The gate sees a CPU hog that is not ours, refuses to call the host quiet
// within its bound, and redoes windows exactly Retries times before keeping
// the last one flagged contended. The threshold is set well below one
// core: the hog alone, or whatever else keeps it from its core on this
// shared machine, is foreign CPU above it.
func TestGateFlagsHog(t *testing.T) {
	hog := startHog(t)
	ctx := context.Background()

	// The sampler attributes the hog's core to it and to the host.
	s := proc.NewSampler(0, proc.TreeGroup("hog", hog.Process.Pid))
	s.Start()
	time.Sleep(300 * time.Millisecond)
	w := s.Stop()
	g, _ := w.Group("hog")
	if g.Cores < 0.05 || w.HostBusyCores+0.05 < g.Cores {
		t.Fatalf("hog measured at %.2f cores, host busy %.2f", g.Cores, w.HostBusyCores)
	}

	const retries = 2
	meter := proc.ForeignMeter(proc.SelfGroup("harness"))
	gate, _ := host.NewGate(host.Baseline{}, 0.1, retries, 2, meter)
	start := time.Now()
	q, err := gate.WaitQuiet(ctx, 600*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if q.Quiet || q.ForeignCores <= 0.1 || q.Waited < 600*time.Millisecond || time.Since(start) > 600*time.Millisecond+3*gate.Step+2*time.Second {
		t.Errorf("WaitQuiet with a hog: %+v after %v", q, time.Since(start))
	}

	attempts := 0
	var v host.Verdict
	for {
		s := proc.NewSampler(0, proc.SelfGroup("harness"))
		s.Start()
		time.Sleep(200 * time.Millisecond)
		w := s.Stop()
		v = gate.Judge(attempts, w.ForeignCores, w.Suspended)
		attempts++
		if v.Action != host.Redo {
			break
		}
		if attempts > 10 {
			t.Fatal("the gate keeps asking for redos past its budget")
		}
	}
	if attempts != retries+1 || v.Action != host.Keep || !v.Contended {
		t.Errorf("after %d attempts: %+v; want %d attempts ending in keep, contended", attempts, v, retries+1)
	}
}

// WaitQuiet waits while the hog runs and returns once it is gone. The
// meter counts only the hog, so the other load on this shared machine
// cannot decide the outcome.
func TestGateWaitsForHogToStop(t *testing.T) {
	hog := startHog(t)
	hogOnly := func(ctx context.Context, d time.Duration) (float64, error) {
		s := proc.NewSampler(d, proc.TreeGroup("hog", hog.Process.Pid))
		s.Start()
		time.Sleep(d)
		g, _ := s.Stop().Group("hog")
		return g.Cores, nil
	}
	gate, _ := host.NewGate(host.Baseline{}, 0.05, 1, 2, hogOnly)
	gate.Step = 200 * time.Millisecond // ≥ 1 clock tick of a starved hog
	const hogFor = 600 * time.Millisecond
	go func() { time.Sleep(hogFor); hog.Process.Kill() }()
	q, err := gate.WaitQuiet(context.Background(), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Quiet || q.Waited < hogFor || q.Steps < 2 {
		t.Errorf("WaitQuiet while a hog runs for %v: %+v", hogFor, q)
	}
}
