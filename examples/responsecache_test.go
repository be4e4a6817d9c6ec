package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/plan"
)

// mixExamples measure a layer on a mix of routes (a case made of other
// cases), each route's share of the step shown beside the mix's.
var mixExamples = []string{"response-cache"}

// TestResponseCacheExample runs examples/response-cache as its README
// says, shortened to one round: both stacks pass parity, every window
// sends the mix's two routes in its weights' ratio, and the step carries
// each route's figures and the route threshold is judged on the renames.
func TestResponseCacheExample(t *testing.T) {
	t.Parallel() // see TestExamplesPassParity
	readme, err := os.ReadFile(filepath.Join("response-cache", "README.md"))
	if err != nil || !strings.Contains(string(readme), "stackbench run  -f examples/response-cache/stackbench.yaml") {
		t.Errorf("response-cache/README.md must name the command that runs the example (%v)", err)
	}
	// Its latency windows need three rounds for a cell.
	r := runExample(t, "response-cache", func(o *plan.Overrides) { o.Rounds = 3 })
	for _, w := range r.res.Windows {
		if !w.Final || w.Load == nil {
			continue
		}
		if len(w.Load.Routes) != 2 || w.Load.Routes[0].Name != "page" || w.Load.Routes[1].Name != "rename" {
			t.Errorf("%s: routes %+v; want page and rename", w.Key, w.Load.Routes)
			continue
		}
		page, rename := w.Load.Routes[0], w.Load.Routes[1]
		if page.Attempts < 8*rename.Attempts || page.Attempts > 10*rename.Attempts+20 || rename.Successes != rename.Attempts {
			t.Errorf("%s: %d pages, %d renames (%d answered); want 9 to 1, every rename answered", w.Key, page.Attempts, rename.Attempts, rename.Successes)
		}
	}
	m, err := analysis.FromResults(r.res, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 1 || len(m.Steps[0].Routes) != 2 || !m.Steps[0].Routes[1].Called || m.Steps[0].Routes[1].ToP50Micros <= 0 {
		t.Errorf("steps %+v; want no-cache → cache with both routes' figures, called", m.Steps)
	}
	named := 0
	for _, tc := range m.Thresholds {
		if tc.Target() == "storefront/rename" {
			named++
		}
	}
	if named != 2 {
		t.Errorf("thresholds %+v; want storefront/rename judged for each stack", m.Thresholds)
	}
}
