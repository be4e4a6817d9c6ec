package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

func TestProcessOnlyFileRefusedByRun(t *testing.T) {
	f, err := plan.Load(filepath.Join("..", "..", "apps", "di", "stackbench.di.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resolvePlan(f, plan.Overrides{}); err == nil {
		t.Error("a file without stacks resolved to a run plan")
	}
}

// TestProcessCommandOutputsAndFails runs `stackbench process` on two tiny
// commands: JSON with both cells and the call analysis decided of them
// (run.Process), then a failing command's exit status 1 with the text
// table and the call it left undefined still printed.
func TestProcessCommandOutputsAndFails(t *testing.T) {
	file := "process:\n  sizes: [1]\n  warmup: 0\n  rounds: 2\n  commands:\n    - {name: yes, dir: ., run: /bin/true}\n    - {name: also, dir: ., run: /bin/true}\n"
	dir := writeComparison(t, file)
	code, out, errOut := runMain(t, dir, nil, "process", "-o", "json")
	if code != 0 || !strings.Contains(out, `"command": "yes"`) || !strings.Contains(out, `"command": "also"`) || !strings.Contains(out, `"from": "yes"`) {
		t.Errorf("json: code %d, stderr %q:\n%s", code, errOut, out)
	}
	dir = writeComparison(t, strings.Replace(file, "{name: also, dir: ., run: /bin/true}", "{name: also, dir: ., run: /bin/false}", 1))
	code, out, errOut = runMain(t, dir, nil, "process")
	if code != 1 || !strings.Contains(out, "Process suite") || !strings.Contains(out, "size 1, yes → also: no comparison (a cell failed)") || !strings.Contains(errOut, "a command failed") {
		t.Errorf("failing command: code %d, stderr %q:\n%s", code, errOut, out)
	}
}
