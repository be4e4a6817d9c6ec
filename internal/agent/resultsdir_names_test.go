package agent_test

import (
	"slices"
	"testing"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/run"
)

// The sync knows a results directory by the names the journal and the run
// give its files (agent cannot import run, which imports it).
func TestResultsDirFilesAreTheRunsNames(t *testing.T) {
	if want := []string{journal.FileName, run.LockFile}; !slices.Equal(agent.ResultsDirFiles, want) {
		t.Errorf("the sync knows a results directory by %q; it holds %q", agent.ResultsDirFiles, want)
	}
}
