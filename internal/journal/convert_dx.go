package journal

import "github.com/stackbench/stackbench/internal/suite/dx"

// DXResultOf converts v to its journaled form.
func DXResultOf(v dx.Result) DXResult {
	return DXResult{
		Targets: ConvertSlice(v.Targets, DXTargetOf),
	}
}

// DX converts v back to a dx.Result.
func (v DXResult) DX() dx.Result {
	return dx.Result{
		Targets: ConvertSlice(v.Targets, DXTarget.DX),
	}
}

// DXTargetOf converts v to its journaled form.
func DXTargetOf(v dx.TargetResult) DXTarget {
	return DXTarget{
		Name:          v.Name,
		Size:          v.Size,
		Install:       ConvertPtr(v.Install, DXTimingOf),
		Generate:      ConvertPtr(v.Generate, DXTimingOf),
		Build:         ConvertPtr(v.Build, DXTimingOf),
		ArtifactBytes: v.ArtifactBytes,
		ArtifactFiles: v.ArtifactFiles,
		Deps:          ConvertPtr(v.Deps, DXDepsOf),
		Reload:        ConvertPtr(v.Reload, DXSpreadOf),
		Error:         v.Error,
	}
}

// DX converts v back to a dx.TargetResult.
func (v DXTarget) DX() dx.TargetResult {
	return dx.TargetResult{
		Name:          v.Name,
		Size:          v.Size,
		Install:       ConvertPtr(v.Install, DXTiming.DX),
		Generate:      ConvertPtr(v.Generate, DXTiming.DX),
		Build:         ConvertPtr(v.Build, DXTiming.DX),
		ArtifactBytes: v.ArtifactBytes,
		ArtifactFiles: v.ArtifactFiles,
		Deps:          ConvertPtr(v.Deps, DXDeps.DX),
		Reload:        ConvertPtr(v.Reload, DXSpread.DX),
		Error:         v.Error,
	}
}

// DXTimingOf converts v to its journaled form.
func DXTimingOf(v dx.Timing) DXTiming {
	return DXTiming{
		Cold: ConvertPtr(v.Cold, DXSpreadOf),
		Warm: ConvertPtr(v.Warm, DXSpreadOf),
	}
}

// DX converts v back to a dx.Timing.
func (v DXTiming) DX() dx.Timing {
	return dx.Timing{
		Cold: ConvertPtr(v.Cold, DXSpread.DX),
		Warm: ConvertPtr(v.Warm, DXSpread.DX),
	}
}

// DXSpreadOf converts v to its journaled form.
func DXSpreadOf(v dx.Spread) DXSpread {
	return DXSpread{
		Median:  v.Median,
		Q1:      v.Q1,
		Q3:      v.Q3,
		Min:     v.Min,
		Max:     v.Max,
		N:       v.N,
		Samples: v.Samples,
	}
}

// DX converts v back to a dx.Spread.
func (v DXSpread) DX() dx.Spread {
	return dx.Spread{
		Median:  v.Median,
		Q1:      v.Q1,
		Q3:      v.Q3,
		Min:     v.Min,
		Max:     v.Max,
		N:       v.N,
		Samples: v.Samples,
	}
}

// DXDepsOf converts v to its journaled form.
func DXDepsOf(v dx.Deps) DXDeps {
	return DXDeps{
		Ecosystem: v.Ecosystem,
		Bytes:     v.Bytes,
		Packages:  v.Packages,
		Counting:  v.Counting,
		Missing:   v.Missing,
	}
}

// DX converts v back to a dx.Deps.
func (v DXDeps) DX() dx.Deps {
	return dx.Deps{
		Ecosystem: v.Ecosystem,
		Bytes:     v.Bytes,
		Packages:  v.Packages,
		Counting:  v.Counting,
		Missing:   v.Missing,
	}
}
