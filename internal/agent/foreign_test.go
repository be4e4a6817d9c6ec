package agent

import (
	"context"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"
)

// TestSampleReadsForeignCPUProcessByProcess: a sample on the agent's host
// reads foreign CPU process by process, as the local sampler does — a
// burner no tree of the sample claims shows in ForeignProcessCores — and
// the agent's own CPU is measured apart (AgentCores), the harness's
// overhead rather than a neighbour's.
func TestSampleReadsForeignCPUProcessByProcess(t *testing.T) {
	s := startSession(t)
	ctx := context.Background()
	startTestServer(t, s)

	burner := exec.Command("sh", "-c", "while :; do :; done")
	if err := burner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { burner.Process.Kill(); burner.Wait() }()
	from := time.Now().Add(50 * time.Millisecond)
	smp, err := s.client.Sample(ctx, "server", from, from.Add(600*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if smp.ForeignProcessCores < 0.4 {
		t.Errorf("a busy loop beside the server: foreign CPU read process by process %.2f cores (ticks %.2f, host busy %.2f); want at least 0.4",
			smp.ForeignProcessCores, smp.ForeignTickCores, smp.HostBusyCores)
	}
	burner.Process.Kill()
	burner.Wait()

	// The agent itself busy: its CPU is the agent's, apart.
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		for !stop.Load() {
		}
		close(done)
	}()
	from = time.Now().Add(50 * time.Millisecond)
	smp, err = s.client.Sample(ctx, "server", from, from.Add(600*time.Millisecond))
	stop.Store(true)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if smp.AgentCores < 0.3 {
		t.Errorf("the agent spinning a core: its own CPU %.2f cores; want at least 0.3, measured apart from foreign (%.2f)", smp.AgentCores, smp.ForeignProcessCores)
	}
}
