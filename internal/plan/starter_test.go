package plan

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestStarterValidates loads the starter file exactly as init writes it,
// and resolves it with every profile.
func TestStarterValidates(t *testing.T) {
	path := writeConfig(t, StarterYAML)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Stacks) != 1 || f.Stacks[0].Dir != filepath.Dir(path) || f.Database != Embedded || f.Workload.Name != "saas-slice" || f.Stacks[0].BootTimeout.String() != "1m0s" {
		t.Errorf("starter: %+v", f)
	}
	for _, profile := range ProfileNames() {
		p, err := f.Resolve(Overrides{Profile: profile})
		if err != nil || len(p.Windows) == 0 {
			t.Errorf("%s: %d windows, %v", profile, len(p.Windows), err)
		}
	}
}

// TestStarterProtocolComment checks that the commented protocol section of
// the starter is valid once uncommented, so its example stays true.
func TestStarterProtocolComment(t *testing.T) {
	var lines []string
	in := false
	for _, line := range strings.Split(StarterYAML, "\n") {
		switch {
		case line == "# protocol:":
			in = true
			lines = append(lines, "protocol:")
		case in && strings.HasPrefix(line, "#   "):
			lines = append(lines, strings.TrimPrefix(line, "#"))
		default:
			in = false
			lines = append(lines, line)
		}
	}
	uncommented := strings.Join(lines, "\n")
	if !strings.Contains(uncommented, "\nprotocol:\n   concurrency: [10, 100]") {
		t.Fatalf("the protocol comment moved:\n%s", uncommented)
	}
	f, err := LoadEnv(writeConfig(t, uncommented), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Protocol.Gate.Mode != GateAuto || len(p.Protocol.Cases) != 7 || p.Protocol.BootStarts != 10 {
		t.Errorf("protocol %+v", p.Protocol)
	}
	// The comment says its values are the standard profile's: uncommented,
	// they change nothing.
	g, err := LoadEnv(writeConfig(t, StarterYAML), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	std, err := g.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Protocol, std.Protocol) {
		t.Errorf("the commented protocol is not the standard profile:\n got %+v\nwant %+v", p.Protocol, std.Protocol)
	}
}

// TestStarterThresholdsComment checks that the commented thresholds line
// of the starter is valid once uncommented.
func TestStarterThresholdsComment(t *testing.T) {
	const line = "# thresholds: {p99: 25ms, error_rate: 0.1%}"
	if !strings.Contains(StarterYAML, "\n"+line+"\n") {
		t.Fatal("the thresholds comment moved")
	}
	f, err := LoadEnv(writeConfig(t, strings.Replace(StarterYAML, line, strings.TrimPrefix(line, "# "), 1)), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil || len(p.Thresholds) != 7 || p.Thresholds[0].Thresholds.P99 != 25*time.Millisecond {
		t.Errorf("thresholds %+v, %v", p.Thresholds, err)
	}
}
