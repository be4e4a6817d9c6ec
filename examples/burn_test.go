package examples

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// express-pg's known-slowdown comparison files are valid, without
// warnings (examples/ci's file needs the directories its workflow makes,
// and is checked there).
func TestBurnComparisonFilesAreValid(t *testing.T) {
	files, err := filepath.Glob("express-pg/stackbench.burn*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("found %v; want express-pg's stackbench.burn.yaml and stackbench.burn-fixed.yaml", files)
	}
	for _, path := range files {
		f, err := plan.Load(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, w := range f.Warnings {
			t.Errorf("%s: warning: %v", path, w)
		}
	}
}

// express-pg's BURN_US does about that much CPU work per call: the loop
// calibrated at start, timed here by the process's own CPU clock over 400
// calls (the fastest of three batches, the least disturbed).
func TestExpressBurnDoesItsMicroseconds(t *testing.T) {
	require(t, "node")
	script := `
import { burner } from './burn.js'
const mw = burner({ BURN_US: '120' })
const res = { locals: {} }
let best = Infinity
for (let b = 0; b < 3; b++) {
  const c0 = process.cpuUsage()
  for (let i = 0; i < 400; i++) mw({}, res, () => {})
  const c = process.cpuUsage(c0)
  best = Math.min(best, (c.user + c.system) / 400)
}
console.log(best, burner({}) === undefined, burner({ BURN_US: '0' }) === undefined)
`
	cmd := exec.Command("node", "--input-type=module", "-e", script)
	cmd.Dir = "express-pg"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	f := strings.Fields(string(out))
	us, perr := strconv.ParseFloat(f[0], 64)
	if perr != nil || len(f) != 3 {
		t.Fatalf("output %q", out)
	}
	if us < 80 || us > 200 || f[1] != "true" || f[2] != "true" {
		t.Errorf("BURN_US=120 spent %.0f µs of CPU a call (want 80–200); without BURN_US no middleware: %s, with 0: %s", us, f[1], f[2])
	}
}
