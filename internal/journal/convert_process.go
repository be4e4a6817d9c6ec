package journal

import "github.com/stackbench/stackbench/internal/suite/spawn"

// ProcessResultOf converts v to its journaled form.
func ProcessResultOf(v spawn.Result) ProcessResult {
	return ProcessResult{
		Sizes:    v.Sizes,
		Commands: v.Commands,
		Warmup:   v.Warmup,
		Rounds:   v.Rounds,
		Samples:  ConvertSlice(v.Samples, ProcessSampleOf),
		Cells:    ConvertSlice(v.Cells, ProcessCellOf),
		Calls:    ConvertSlice(v.Calls, ProcessCallOf),
	}
}

// Process converts v back to a spawn.Result.
func (v ProcessResult) Process() spawn.Result {
	return spawn.Result{
		Sizes:    v.Sizes,
		Commands: v.Commands,
		Warmup:   v.Warmup,
		Rounds:   v.Rounds,
		Samples:  ConvertSlice(v.Samples, ProcessSample.Process),
		Cells:    ConvertSlice(v.Cells, ProcessCell.Process),
		Calls:    ConvertSlice(v.Calls, ProcessCall.Process),
	}
}

// ProcessSampleOf converts v to its journaled form.
func ProcessSampleOf(v spawn.Sample) ProcessSample {
	return ProcessSample{
		Command:  v.Command,
		Size:     v.Size,
		Round:    v.Round,
		Seq:      v.Seq,
		Wall:     v.Wall,
		Metrics:  v.Metrics,
		ExitCode: v.ExitCode,
		Error:    v.Error,
	}
}

// Process converts v back to a spawn.Sample.
func (v ProcessSample) Process() spawn.Sample {
	return spawn.Sample{
		Command:  v.Command,
		Size:     v.Size,
		Round:    v.Round,
		Seq:      v.Seq,
		Wall:     v.Wall,
		Metrics:  v.Metrics,
		ExitCode: v.ExitCode,
		Error:    v.Error,
	}
}

// ProcessCellOf converts v to its journaled form.
func ProcessCellOf(v spawn.Cell) ProcessCell {
	return ProcessCell{
		Command: v.Command,
		Size:    v.Size,
		Wall:    ProcessSpreadOf(v.Wall),
		Metrics: ConvertMap(v.Metrics, ProcessSpreadOf),
		Error:   v.Error,
	}
}

// Process converts v back to a spawn.Cell.
func (v ProcessCell) Process() spawn.Cell {
	return spawn.Cell{
		Command: v.Command,
		Size:    v.Size,
		Wall:    v.Wall.Process(),
		Metrics: ConvertMap(v.Metrics, ProcessSpread.Process),
		Error:   v.Error,
	}
}

// ProcessSpreadOf converts v to its journaled form.
func ProcessSpreadOf(v spawn.Spread) ProcessSpread {
	return ProcessSpread{
		Median:    v.Median,
		Q1:        v.Q1,
		Q3:        v.Q3,
		Min:       v.Min,
		Max:       v.Max,
		RelSpread: v.RelSpread,
		N:         v.N,
	}
}

// Process converts v back to a spawn.Spread.
func (v ProcessSpread) Process() spawn.Spread {
	return spawn.Spread{
		Median:    v.Median,
		Q1:        v.Q1,
		Q3:        v.Q3,
		Min:       v.Min,
		Max:       v.Max,
		RelSpread: v.RelSpread,
		N:         v.N,
	}
}

// ProcessCallOf converts v to its journaled form.
func ProcessCallOf(v spawn.Call) ProcessCall {
	return ProcessCall{
		Size:    v.Size,
		From:    v.From,
		To:      v.To,
		Change:  v.Change,
		Defined: v.Defined,
		Verdict: v.Verdict,
		Detail:  v.Detail,
	}
}

// Process converts v back to a spawn.Call.
func (v ProcessCall) Process() spawn.Call {
	return spawn.Call{
		Size:    v.Size,
		From:    v.From,
		To:      v.To,
		Change:  v.Change,
		Defined: v.Defined,
		Verdict: v.Verdict,
		Detail:  v.Detail,
	}
}
