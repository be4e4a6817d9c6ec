package run

import (
	"math"
	"testing"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
)

// TestRemoteForeignCPUTakesTheLargerReading: a server host's foreign CPU
// is the larger of the agent's process-by-process and tick readings, both
// journaled, as for a local window; an older agent's sample (neither
// reading) falls back to the host's busy CPU less the server, its
// services and the agent.
func TestRemoteForeignCPUTakesTheLargerReading(t *testing.T) {
	var rec journal.Window
	serverHostUsage(&rec, agent.Sample{Cores: 0.5, HostBusyCores: 0.7, ForeignProcessCores: 0.31, ForeignTickCores: 0.12, AgentCores: 0.02})
	if rec.ForeignCores != 0.31 || rec.ForeignProcessCores != 0.31 || rec.ForeignTickCores != 0.12 {
		t.Errorf("foreign %.2f (process %.2f, ticks %.2f); want 0.31 (0.31, 0.12)", rec.ForeignCores, rec.ForeignProcessCores, rec.ForeignTickCores)
	}
	rec = journal.Window{}
	serverHostUsage(&rec, agent.Sample{Cores: 0.5, HostBusyCores: 1.0, AgentCores: 0.1,
		Services: &agent.ServicesSample{Cores: 0.2}})
	if math.Abs(rec.ForeignCores-0.2) > 1e-9 || rec.ForeignProcessCores != 0 {
		t.Errorf("an older agent: foreign %.3f cores, process %.2f; want 1.0 busy − 0.5 server − 0.2 services − 0.1 agent = 0.2, no process reading", rec.ForeignCores, rec.ForeignProcessCores)
	}
}
