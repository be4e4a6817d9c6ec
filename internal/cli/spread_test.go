package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
)

// A kept spread is used for runs of the machine it was measured on, and
// not for another's.
func TestMeasuredSpreadIsThisMachines(t *testing.T) {
	cfg := t.TempDir()
	env := Env{Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}}
	host := analysis.Host{OS: "linux", Arch: "amd64", CPU: "Test CPU", Cores: 2}
	if _, ok := measuredSpread(env, host); ok {
		t.Fatal("a spread with none kept")
	}
	data, _ := json.Marshal(storedSpread{SpreadMeasure: analysis.SpreadMeasure{Runs: []string{"a", "b", "c"}, Host: host, ThroughputSD: 0.021, CostSD: 0.012}, Measured: time.Now()})
	if err := os.MkdirAll(filepath.Join(cfg, "stackbench"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, spreadFileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	sp, ok := measuredSpread(env, host)
	if !ok || sp.ThroughputSD != 0.021 || sp.CostSD != 0.012 {
		t.Errorf("kept spread %+v, %v", sp, ok)
	}
	other := host
	other.Cores = 8
	if _, ok := measuredSpread(env, other); ok {
		t.Error("a spread measured on a 2-core machine used for an 8-core one")
	}
}

func TestSpreadNeedsThreeRuns(t *testing.T) {
	code, _, errOut := runMain(t, t.TempDir(), nil, "spread", "a", "b")
	if code != 2 || !strings.Contains(errOut, "3 or more results directories") {
		t.Errorf("exit %d, stderr %q; want a usage error naming three runs", code, errOut)
	}
}
