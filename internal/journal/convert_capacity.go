package journal

import "github.com/stackbench/stackbench/internal/capacity"

// CapacityFiguresOf converts v to its journaled form.
func CapacityFiguresOf(v capacity.Figures) CapacityFigures {
	return CapacityFigures{
		Windows:         v.Windows,
		Overturned:      v.Overturned,
		DurationSeconds: v.DurationSeconds,
		ThroughputRPS:   v.ThroughputRPS,
		LatencyMicros:   CapacityPercentilesOf(v.LatencyMicros),
		ErrorShare:      v.ErrorShare,
		UnfinishedShare: v.UnfinishedShare,
		UnsentShare:     v.UnsentShare,
	}
}

// Capacity converts v back to a capacity.Figures.
func (v CapacityFigures) Capacity() capacity.Figures {
	return capacity.Figures{
		Windows:         v.Windows,
		Overturned:      v.Overturned,
		DurationSeconds: v.DurationSeconds,
		ThroughputRPS:   v.ThroughputRPS,
		LatencyMicros:   v.LatencyMicros.Capacity(),
		ErrorShare:      v.ErrorShare,
		UnfinishedShare: v.UnfinishedShare,
		UnsentShare:     v.UnsentShare,
	}
}

// CapacityPercentilesOf converts v to its journaled form.
func CapacityPercentilesOf(v capacity.Percentiles) CapacityPercentiles {
	return CapacityPercentiles{
		P50:  v.P50,
		P99:  v.P99,
		P999: v.P999,
		SLO:  v.SLO,
		Max:  v.Max,
	}
}

// Capacity converts v back to a capacity.Percentiles.
func (v CapacityPercentiles) Capacity() capacity.Percentiles {
	return capacity.Percentiles{
		P50:  v.P50,
		P99:  v.P99,
		P999: v.P999,
		SLO:  v.SLO,
		Max:  v.Max,
	}
}

// CapacitySearchProbeOf converts v to its journaled form.
func CapacitySearchProbeOf(v capacity.Probe) CapacitySearchProbe {
	return CapacitySearchProbe{
		Index:                v.Index,
		Phase:                v.Phase,
		Repeat:               v.Repeat,
		RateRPS:              v.RateRPS,
		DurationSeconds:      v.DurationSeconds,
		ThroughputRPS:        v.ThroughputRPS,
		Attempts:             v.Attempts,
		Successes:            v.Successes,
		LatencyMicros:        CapacityPercentilesOf(v.LatencyMicros),
		ErrorShare:           v.ErrorShare,
		UnfinishedShare:      v.UnfinishedShare,
		UnsentShare:          v.UnsentShare,
		Errors:               v.Errors,
		GeneratorCPUSeconds:  v.GeneratorCPUSeconds,
		GeneratorWaitSeconds: v.GeneratorWaitSeconds,
		ClientBound:          v.ClientBound,
		Pass:                 v.Pass,
		Reasons:              v.Reasons,
		WallSeconds:          v.WallSeconds,
	}
}

// Capacity converts v back to a capacity.Probe.
func (v CapacitySearchProbe) Capacity() capacity.Probe {
	return capacity.Probe{
		Index:                v.Index,
		Phase:                v.Phase,
		Repeat:               v.Repeat,
		RateRPS:              v.RateRPS,
		DurationSeconds:      v.DurationSeconds,
		ThroughputRPS:        v.ThroughputRPS,
		Attempts:             v.Attempts,
		Successes:            v.Successes,
		LatencyMicros:        v.LatencyMicros.Capacity(),
		ErrorShare:           v.ErrorShare,
		UnfinishedShare:      v.UnfinishedShare,
		UnsentShare:          v.UnsentShare,
		Errors:               v.Errors,
		GeneratorCPUSeconds:  v.GeneratorCPUSeconds,
		GeneratorWaitSeconds: v.GeneratorWaitSeconds,
		ClientBound:          v.ClientBound,
		Pass:                 v.Pass,
		Reasons:              v.Reasons,
		WallSeconds:          v.WallSeconds,
	}
}

// CapacityReportOf converts v to its journaled form.
func CapacityReportOf(v capacity.Report) CapacityReport {
	return CapacityReport{
		SchemaVersion:         v.SchemaVersion,
		URL:                   v.URL,
		Method:                v.Method,
		SLO:                   CapacitySLOOf(v.SLO),
		MaxErrorShare:         v.MaxErrorShare,
		MaxUnfinishedShare:    v.MaxUnfinishedShare,
		MaxUnsentShare:        v.MaxUnsentShare,
		MaxShortfall:          v.MaxShortfall,
		MaxGeneratorWaitShare: v.MaxGeneratorWaitShare,
		Status:                v.Status,
		CapacityRPS:           v.CapacityRPS,
		AtCapacity:            ConvertPtr(v.AtCapacity, CapacityFiguresOf),
		LastPassRPS:           v.LastPassRPS,
		FirstFailRPS:          v.FirstFailRPS,
		ClosedLoopRPS:         v.ClosedLoopRPS,
		StartFrom:             v.StartFrom,
		StartRPS:              v.StartRPS,
		Resolution:            v.Resolution,
		Confirmations:         v.Confirmations,
		Retries:               v.Retries,
		ProbeSeconds:          v.ProbeSeconds,
		WarmupSeconds:         v.WarmupSeconds,
		BudgetSeconds:         v.BudgetSeconds,
		ElapsedSeconds:        v.ElapsedSeconds,
		IgnoreStarvation:      v.IgnoreStarvation,
		Probes:                ConvertSlice(v.Probes, CapacitySearchProbeOf),
	}
}

// Capacity converts v back to a capacity.Report.
func (v CapacityReport) Capacity() capacity.Report {
	return capacity.Report{
		SchemaVersion:         v.SchemaVersion,
		URL:                   v.URL,
		Method:                v.Method,
		SLO:                   v.SLO.Capacity(),
		MaxErrorShare:         v.MaxErrorShare,
		MaxUnfinishedShare:    v.MaxUnfinishedShare,
		MaxUnsentShare:        v.MaxUnsentShare,
		MaxShortfall:          v.MaxShortfall,
		MaxGeneratorWaitShare: v.MaxGeneratorWaitShare,
		Status:                v.Status,
		CapacityRPS:           v.CapacityRPS,
		AtCapacity:            ConvertPtr(v.AtCapacity, CapacityFigures.Capacity),
		LastPassRPS:           v.LastPassRPS,
		FirstFailRPS:          v.FirstFailRPS,
		ClosedLoopRPS:         v.ClosedLoopRPS,
		StartFrom:             v.StartFrom,
		StartRPS:              v.StartRPS,
		Resolution:            v.Resolution,
		Confirmations:         v.Confirmations,
		Retries:               v.Retries,
		ProbeSeconds:          v.ProbeSeconds,
		WarmupSeconds:         v.WarmupSeconds,
		BudgetSeconds:         v.BudgetSeconds,
		ElapsedSeconds:        v.ElapsedSeconds,
		IgnoreStarvation:      v.IgnoreStarvation,
		Probes:                ConvertSlice(v.Probes, CapacitySearchProbe.Capacity),
	}
}

// CapacitySLOOf converts v to its journaled form.
func CapacitySLOOf(v capacity.SLO) CapacitySLO {
	return CapacitySLO{
		Percentile:    v.Percentile,
		LatencyMicros: v.LatencyMicros,
	}
}

// Capacity converts v back to a capacity.SLO.
func (v CapacitySLO) Capacity() capacity.SLO {
	return capacity.SLO{
		Percentile:    v.Percentile,
		LatencyMicros: v.LatencyMicros,
	}
}
