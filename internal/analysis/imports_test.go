package analysis

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDecisionsDragInNoRendering holds the package boundary design.md
// draws: deciding a step (analysis, and run's looks through it) needs
// neither pricing nor rendering, so neither analysis nor run may import
// internal/report or internal/cost.
func TestDecisionsDragInNoRendering(t *testing.T) {
	for _, pkg := range []string{".", "../run"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasSuffix(dep, "/internal/report") || strings.HasSuffix(dep, "/internal/cost") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
