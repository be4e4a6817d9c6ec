package journal

import (
	"time"

	"github.com/stackbench/stackbench/internal/suite/dx"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// KindDX is the dx phase's results (DX), KindProcess the process phase's
// (Process): each is journaled once, after the windows and before
// results.json, by stackbench run when the file has a dx: or process:
// section.
const (
	KindDX      Kind = "dx"
	KindProcess Kind = "process"
)

// DXFile and ProcessFile are the files in which a results directory
// written before the suites were journaled holds their results: the
// report reads them when the journal has no record of a suite, and a
// resume of such a run does not measure that suite again.
const (
	DXFile      = "dx.json"
	ProcessFile = "process.json"
)

// DX is the developer-experience suite as the run measured it
// (docs/dx.md): install, build, artifact, dependencies and reload per
// target.
type DX struct {
	Time time.Time `json:"time"`
	dx.Result
}

// Process is the process suite as the run measured it (docs/process.md):
// commands timed spawn → exit over sizes, and their calls.
type Process struct {
	Time time.Time `json:"time"`
	spawn.Result
}
