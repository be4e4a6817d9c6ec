package journal

import "time"

// DXResult is dx.Result as the journal records it:
// DXResultOf converts one, DXResult.DX converts it back.
//
// dx.Result is the whole suite.
type DXResult struct {
	Targets []DXTarget `json:"targets"`
}

// DXTarget is dx.TargetResult as the journal records it:
// DXTargetOf converts one, DXTarget.DX converts it back.
//
// dx.TargetResult is one target's figures; a step that was not asked is nil.
type DXTarget struct {
	Name string `json:"name"`
	Size int    `json:"size,omitempty"`
	// Install, Generate and Build are the timed steps.
	Install  *DXTiming `json:"install,omitempty"`
	Generate *DXTiming `json:"generate,omitempty"`
	Build    *DXTiming `json:"build,omitempty"`
	// ArtifactBytes is the artifact's size after the last build (files and
	// directories, as du -sb counts them); ArtifactFiles the regular files in it.
	ArtifactBytes int64   `json:"artifact_bytes,omitempty"`
	ArtifactFiles int     `json:"artifact_files,omitempty"`
	Deps          *DXDeps `json:"deps,omitempty"`
	// Reload is write → changed answer, over Rounds edits.
	Reload *DXSpread `json:"reload_ns,omitempty"`
	// Error says why the target failed; its figures are then partial.
	Error string `json:"error,omitempty"`
}

// DXTiming is dx.Timing as the journal records it:
// DXTimingOf converts one, DXTiming.DX converts it back.
//
// dx.Timing is a step's cold and warm durations. Cold is nil when the target
// names no cold directories.
type DXTiming struct {
	Cold *DXSpread `json:"cold_ns,omitempty"`
	Warm *DXSpread `json:"warm_ns"`
}

// DXSpread is dx.Spread as the journal records it:
// DXSpreadOf converts one, DXSpread.DX converts it back.
//
// dx.Spread summarises durations: the median is one sample's figure (the
// lower middle for an even count, as everywhere in stackbench), with the
// quartiles, extremes and the samples themselves in measurement order.
type DXSpread struct {
	Median  time.Duration   `json:"median"`
	Q1      time.Duration   `json:"q1"`
	Q3      time.Duration   `json:"q3"`
	Min     time.Duration   `json:"min"`
	Max     time.Duration   `json:"max"`
	N       int             `json:"n"`
	Samples []time.Duration `json:"samples"`
}

// DXDeps is dx.Deps as the journal records it:
// DXDepsOf converts one, DXDeps.DX converts it back.
//
// dx.Deps is a dependency tree's weight.
type DXDeps struct {
	// Ecosystem is "npm" or "go".
	Ecosystem string `json:"ecosystem"`
	// Bytes is the tree's size on disk (see Usage.Bytes); for Go, the sum
	// of the module cache directories of the modules listed.
	Bytes int64 `json:"bytes"`
	// Packages counts packages as the ecosystem's own listing does (see
	// NodeModules and GoModules); Counting says how, for the report.
	Packages int    `json:"packages"`
	Counting string `json:"counting"`
	// Missing counts Go modules listed but not in the module cache (not
	// needed by the build, so never downloaded); their bytes are not known.
	Missing int `json:"missing,omitempty"`
}
